import {
  logVerifiers,
  openCheckpoint,
  originOf,
  type PinnedKeys,
  pinnedKeys,
} from '../anchor/log/check-proof';
import { prevProblem, readCheckpointMessage } from '../anchor/log/hcs27';
import { sha256, verifyConsistency } from '../anchor/log/merkle';
import type { Checkpoint, NoteVerifier } from '../anchor/log/note';
import { parseBase64, toBase64 } from '../protocol/base64';
import { type MirrorOptions, walkTopic } from './proof';

/**
 * A log-mode topic's checkpoints checked by an outsider (issue 31): every
 * checkpoint message on the mirror is an HCS-27 message whose metadata agrees
 * with the C2SP note it carries (`hcs27.ts`), the note is signed by the log's
 * key (the current one or, across a key rotation, an earlier one; picked by
 * the signature's key id), it names the one before it (`prev` line and HCS-27 `prev`), and its tree extends that one's (RFC 9162
 * consistency, the proof taken from `GET /v1/topics/{id}/log/consistency` but
 * checked against the roots on the mirror); the running hash of every message
 * of the topic follows from the one before. Findings name the message.
 */
export type ChainCheckName =
  | 'running-hash'
  | 'key'
  | 'metadata'
  | 'signature'
  | 'size'
  | 'prev'
  | 'consistency';

export interface ChainFinding {
  check: ChainCheckName;
  /** The HCS message the finding is about (0: none in particular). */
  sequence_number: number;
  tree_size: number | null;
  detail: string;
}

export interface LogChainCheck {
  topic_id: string;
  log_origin: string | null;
  key_source: 'pinned' | 'api' | null;
  /** Messages of the topic whose running hash was recomputed. */
  messages: number;
  /** Messages that claim to be a checkpoint of this log. */
  checkpoints: number;
  /** Successive checkpoint pairs proved consistent. */
  consistency_checked: number;
  last_tree_size: number;
  ok: boolean;
  findings: ChainFinding[];
}

/** GETs an API path (e.g. `client.get`), throwing on a refusal. */
export type ApiGet = (path: string) => Promise<unknown>;

interface Claim {
  seq: number;
  note: string;
  checkpoint: Checkpoint;
  /** The previous checkpoint its HCS-27 metadata names. */
  prev: { size: number; root: string } | null;
}

interface ConsistencyAnswer {
  verifier_key?: unknown;
  verifier_keys?: unknown;
  from?: { checkpoint?: unknown };
  to?: { checkpoint?: unknown };
  consistency_path?: unknown;
}

const UTF8 = new TextEncoder();

/**
 * The checkpoint a message claims to be (its unverified note), if it is an
 * HCS-27 message for this topic; why not, if its metadata breaks HCS-27 or
 * disagrees with its note.
 */
function claimOf(seq: number, base64: string, topicId: string): Claim | string | null {
  const bytes = parseBase64(base64);
  const read = bytes ? readCheckpointMessage(new TextDecoder().decode(bytes)) : null;
  if (read && !read.ok) return read.logId?.endsWith(`/${topicId}`) ? read.reason : null;
  if (!read?.checkpoint.origin.endsWith(`/${topicId}`)) return null;
  return { seq, note: read.note, checkpoint: read.checkpoint, prev: read.prev };
}

export async function verifyLogChain(
  options: MirrorOptions &
    PinnedKeys & {
      api?: ApiGet;
      onProgress?: (messages: number, seq: number) => void;
    },
  topicId: string,
): Promise<LogChainCheck> {
  const findings: ChainFinding[] = [];
  const claims: Claim[] = [];
  let messages = 0;
  for await (const { message, problem } of walkTopic(options, topicId)) {
    messages++;
    const seq = message.sequence_number;
    if (problem)
      findings.push({
        check: 'running-hash',
        sequence_number: seq,
        tree_size: null,
        detail: problem,
      });
    const claim =
      (message.chunk_info?.total ?? 1) === 1 ? claimOf(seq, message.message, topicId) : null;
    if (typeof claim === 'string')
      findings.push({ check: 'metadata', sequence_number: seq, tree_size: null, detail: claim });
    else if (claim) claims.push(claim);
    options.onProgress?.(messages, seq);
  }
  const result = (
    origin: string | null,
    source: LogChainCheck['key_source'],
    consistent = 0,
    last = 0,
  ) => ({
    topic_id: topicId,
    log_origin: origin,
    key_source: source,
    messages,
    checkpoints: claims.length,
    consistency_checked: consistent,
    last_tree_size: last,
    ok: findings.length === 0,
    // By message: malformed checkpoints are found while reading, the rest while walking the chain.
    findings: findings.sort((a, b) => a.sequence_number - b.sequence_number),
  });
  if (claims.length === 0) return result(null, null);

  const key = await keyFor(options, claims);
  if (!key.ok) {
    findings.push({ check: 'key', sequence_number: 0, tree_size: null, detail: key.reason });
    return result(null, null);
  }
  const origin = originOf(key.verifiers[0] as NoteVerifier, topicId);
  const chain = await walkChain(options.api, topicId, key.verifiers, claims, findings);
  return result(origin, key.source, chain.consistent, chain.last);
}

/** The log's keys: pinned by the caller, else as the API serves them (trust on first use). */
async function keyFor(
  options: PinnedKeys & { api?: ApiGet },
  claims: Claim[],
): Promise<
  { ok: true; verifiers: NoteVerifier[]; source: 'pinned' | 'api' } | { ok: false; reason: string }
> {
  const pins = pinnedKeys(options);
  if (pins.length > 0) {
    const pinned = await logVerifiers(pins, []);
    return pinned.ok ? { ...pinned, source: 'pinned' } : pinned;
  }
  const api = options.api;
  if (!api) return { ok: false, reason: 'no verifier key: pin one or give the API' };
  // The API knows only its own checkpoints' sizes: a forged first claim may name another.
  let why = 'none in its answer';
  for (const size of [...new Set(claims.map((c) => c.checkpoint.size))].slice(0, KEY_TRIES)) {
    const path = consistencyPath((claims[0] as Claim).checkpoint, size, size);
    const answer = (await api(path).catch((error: Error) => ({
      error: error.message,
    }))) as ConsistencyAnswer & { error?: string };
    const many = answer.verifier_keys;
    const served = Array.isArray(many) && many.length > 0 ? many : [answer.verifier_key];
    if (served.every((k) => typeof k === 'string')) {
      const keys = await logVerifiers([], served as string[]);
      return keys.ok ? { ...keys, source: 'api' } : keys;
    }
    why = answer.error ?? why;
  }
  return { ok: false, reason: `the API serves no verifier key: ${why}` };
}

/** Tree sizes asked of the API for the log's key at most, when none is pinned. */
const KEY_TRIES = 10;

const consistencyPath = (cp: Checkpoint, from: number, to: number) =>
  `/v1/topics/${cp.origin.slice(cp.origin.lastIndexOf('/') + 1)}/log/consistency?from=${from}&to=${to}`;

/** Signature, size, `prev` line and consistency of each claim after the last genuine one. */
async function walkChain(
  api: ApiGet | undefined,
  topicId: string,
  verifiers: NoteVerifier[],
  claims: Claim[],
  findings: ChainFinding[],
): Promise<{ consistent: number; last: number }> {
  let previous: Claim | null = null;
  let consistent = 0;
  const origin = originOf(verifiers[0] as NoteVerifier, topicId);
  for (const claim of claims) {
    const find = (check: ChainCheckName, detail: string) =>
      findings.push({
        check,
        sequence_number: claim.seq,
        tree_size: claim.checkpoint.size,
        detail,
      });
    const opened = await openCheckpoint(claim.note, verifiers, topicId);
    if (!opened.ok) {
      // Not the log's: a forgery, a key not pinned or served, or another log's note. The
      // chain goes on past it.
      if (claim.checkpoint.origin === origin) find('signature', opened.reason);
      continue;
    }
    const cp = opened.checkpoint;
    const prevLine = cp.extensions.find((l) => l.startsWith('prev '));
    if (previous === null) {
      if (prevLine) find('prev', 'names a previous checkpoint, but none came before it on HCS');
    } else {
      const expected = `prev ${toBase64(await sha256(UTF8.encode(previous.note)))}`;
      if (prevLine !== expected)
        find('prev', `does not name the checkpoint before it (#${previous.seq})`);
      const metaPrev = prevProblem(claim, previous.checkpoint);
      if (metaPrev) find('prev', `${metaPrev} (#${previous.seq})`);
      if (cp.size < previous.checkpoint.size) {
        find('size', `the tree shrank from ${previous.checkpoint.size} to ${cp.size} leaves`);
      } else if (api) {
        const problem = await consistencyProblem(api, previous, { ...claim, checkpoint: cp });
        if (problem) find('consistency', problem);
        else consistent++;
      }
    }
    previous = { ...claim, checkpoint: cp };
  }
  return { consistent, last: previous?.checkpoint.size ?? 0 };
}

/** Why the tree of `newer` (on the mirror) is not an extension of `older`'s, or null. */
async function consistencyProblem(api: ApiGet, older: Claim, newer: Claim): Promise<string | null> {
  const [from, to] = [older.checkpoint.size, newer.checkpoint.size];
  const rootsOf = `#${older.seq} (${from} leaves) and #${newer.seq} (${to} leaves)`;
  if (from === to) {
    const same = toBase64(older.checkpoint.root) === toBase64(newer.checkpoint.root);
    return same ? null : `${rootsOf} have different roots`;
  }
  let answer: ConsistencyAnswer;
  try {
    answer = (await api(consistencyPath(newer.checkpoint, from, to))) as ConsistencyAnswer;
  } catch (error) {
    return `no consistency proof between ${rootsOf}: ${(error as Error).message}`;
  }
  if (answer.from?.checkpoint !== older.note || answer.to?.checkpoint !== newer.note) {
    return `the API's checkpoints of ${from} and ${to} leaves are not the ones on HCS at #${older.seq} and #${newer.seq}`;
  }
  const path = Array.isArray(answer.consistency_path)
    ? answer.consistency_path.map((h) => (typeof h === 'string' ? parseBase64(h) : null))
    : [null];
  if (path.some((h) => h?.length !== 32)) return 'the consistency proof is malformed';
  const ok = await verifyConsistency(
    from,
    to,
    older.checkpoint.root,
    newer.checkpoint.root,
    path as Uint8Array[],
  );
  return ok ? null : `the tree of ${rootsOf} is not an extension of the older one`;
}
