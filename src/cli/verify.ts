import { existsSync, readFileSync } from 'node:fs';
import type { WirestreamClient } from '../client';
import { verifyLogChain } from '../client/log-chain';
import { verifyLogProof } from '../client/log-proof';
import {
  latestSequence,
  type MirrorOptions,
  mirrorUnreached,
  namedWireProblem,
  verifyMessage,
  verifyTopic,
} from '../client/proof';
import { emit, type Output } from './format';
import { ProgressBar } from './progress';
import { UsageError } from './usage';

/** What a log-mode check needs: the mirror, the pinned key if any, the API and the output. */
interface LogContext {
  mirrorUrl: string;
  /** The pinned verifier keys (`--key`, repeatable); none: the ones the API or proof names. */
  keys: string[];
  client: () => WirestreamClient;
  output: Output;
}

export interface VerifyFlags {
  mirror?: string;
  proof?: string;
  key?: string | string[];
  log?: boolean;
}

/**
 * `verify <topic> [--log]` or `verify --proof <file|wire_id>`: checks HCS
 * anchoring from the mirror node's data (and, for log mode's consistency
 * proofs, answers of the API it checks against the mirror). Exit code 0 only
 * when every check holds, 1 when one fails.
 */
export async function verify(
  target: string | undefined,
  flags: VerifyFlags,
  client: () => WirestreamClient,
  output: Output,
): Promise<number> {
  const mirrorUrl = flags.mirror ?? process.env.WIRESTREAM_MIRROR_URL ?? 'http://127.0.0.1:5551';
  try {
    return await verifyWith(target, flags, mirrorUrl, client, output);
  } catch (error) {
    throw mirrorUnreachable(mirrorUrl, error);
  }
}

async function verifyWith(
  target: string | undefined,
  flags: VerifyFlags,
  mirrorUrl: string,
  client: () => WirestreamClient,
  output: Output,
): Promise<number> {
  const keys = flags.key === undefined ? [] : [flags.key].flat();
  if (flags.proof !== undefined) {
    if (target !== undefined) throw new UsageError('verify --proof takes no topic');
    return verifyProof(flags.proof, { mirrorUrl, keys, client, output });
  }
  if (target === undefined) throw new UsageError('missing argument: wirestream verify <topic>');
  if (!/^\d+\.\d+\.\d+$/.test(target)) {
    throw new UsageError(`<topic> is an HCS topic id like 0.0.1001, got "${target}"`);
  }
  if (keys.length > 0 && !flags.log) throw new UsageError('--key goes with --log or --proof');
  return flags.log
    ? verifyLog(target, { mirrorUrl, keys, client, output })
    : verifyChain(target, mirrorUrl, output);
}

/**
 * The mirror's fetch failing says only "fetch failed": name the address
 * tried and how to point at another. (The server's client says so itself.)
 */
export function mirrorUnreachable(mirrorUrl: string, error: unknown): unknown {
  if (!mirrorUnreached(error)) return error;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new Error(
    `cannot reach the mirror node at ${mirrorUrl}${cause}. Is the local stand-in running (npm start)? ` +
      'Set WIRESTREAM_MIRROR_URL (or --mirror) to its address.',
  );
}

/** Prints the result; its exit code: 0 only when every check held. */
function report(output: Output, result: { ok: boolean }, human: string): number {
  emit(output, result, human);
  return result.ok ? 0 : 1;
}

async function verifyChain(topicId: string, mirrorUrl: string, output: Output): Promise<number> {
  const total = await latestSequence({ mirrorUrl }, topicId);
  const bar = new ProgressBar(`verify ${topicId}`, total);
  const result = await verifyTopic(
    { mirrorUrl, onProgress: (checked) => bar.update(checked) },
    topicId,
  );
  bar.finish();
  const human = result.ok
    ? `ok: ${result.checked} messages of ${topicId} chain to running hash #${result.last_sequence_number}`
    : `FAILED at #${result.problem?.sequence_number}: ${result.problem?.reason} (${result.checked} checked before)`;
  return report(output, result, human);
}

async function verifyLog(topicId: string, o: LogContext): Promise<number> {
  const api = o.client();
  const total = await latestSequence({ mirrorUrl: o.mirrorUrl }, topicId);
  const bar = new ProgressBar(`verify ${topicId} --log`, total);
  const result = await verifyLogChain(
    {
      mirrorUrl: o.mirrorUrl,
      ...(o.keys.length > 0 ? { verifierKeys: o.keys } : {}),
      api: (path) => api.get(path),
      onProgress: (n) => bar.update(n),
    },
    topicId,
  );
  bar.finish();
  const lines = result.findings.map(
    (f) => `  ✗ ${f.check} at #${f.sequence_number || '-'}: ${f.detail}`,
  );
  const key = result.key_source === 'api' ? ' (key as the API serves it; pin it with --key)' : '';
  const human = result.ok
    ? `ok: ${result.checkpoints} checkpoints of ${result.log_origin ?? topicId} signed, chained and consistent (${result.consistency_checked} consistency proofs, tree of ${result.last_tree_size} leaves); running hashes of ${result.messages} messages recomputed${key}`
    : [`FAILED: ${result.findings.length} finding(s) on ${topicId}${key}`, ...lines].join('\n');
  return report(o.output, result, human);
}

/**
 * A proof from a file (`-` is stdin) or, for anything else, the API's proof of
 * that wire_id (`asked`: a proof of another Wire fails the check).
 */
async function proofOf(
  source: string,
  client: () => WirestreamClient,
): Promise<{ proof: unknown; asked: string | null }> {
  if (source === '-' || existsSync(source)) {
    const text = readFileSync(source === '-' ? 0 : source, 'utf8');
    try {
      return { proof: JSON.parse(text), asked: null };
    } catch {
      throw new UsageError(`--proof ${source} is not JSON`);
    }
  }
  if (!/^[A-Za-z0-9_:.-]+$/.test(source)) {
    throw new UsageError(`--proof takes a file or a wire_id; "${source}" is neither`);
  }
  return { proof: await client().proof(source), asked: source };
}

/** Why the API's proof is not of the Wire asked for; null when it is, or none was asked. */
const notAsked = (asked: string | null, wireId: unknown) =>
  asked === null || wireId === asked
    ? null
    : `the API answered a proof of Wire ${JSON.stringify(wireId ?? null)}, not of ${asked}`;

async function verifyProof(source: string, o: LogContext): Promise<number> {
  const fetched = await proofOf(source, o.client);
  const proof = fetched.proof as Record<string, unknown>;
  if (proof?.mode !== 'log') {
    if (o.keys.length > 0) throw new UsageError('--key is for log-mode proofs only');
    return verifyEnvelopeProof(proof, fetched.asked, { mirrorUrl: o.mirrorUrl }, o.output);
  }
  const checked = await verifyLogProof(
    { mirrorUrl: o.mirrorUrl, ...(o.keys.length > 0 ? { verifierKeys: o.keys } : {}) },
    proof,
  );
  const other = notAsked(fetched.asked, checked.wire_id);
  const result = other
    ? {
        ...checked,
        ok: false,
        checks: [{ check: 'proof' as const, ok: false, detail: other }, ...checked.checks],
        problem: { check: 'proof' as const, reason: other },
      }
    : checked;
  const where = `${result.hcs_topic_id}#${result.hcs_sequence_number}`;
  const lines = result.checks.map((c) => `  ${c.ok ? '✓' : '✗'} ${c.check}: ${c.detail}`);
  const key =
    result.key_source === 'proof' ? ' (key as the proof names it; pin it with --key)' : '';
  const head = result.ok
    ? `ok: Wire ${result.wire_id} is leaf ${result.leaf_index} of the checkpoint at ${where}${key}`
    : `FAILED ${result.problem?.check}: ${result.problem?.reason}`;
  return report(o.output, result, [head, ...lines].join('\n'));
}

/** An envelope-mode proof: the Wire is the message at its sequence number, whose running hash follows. */
async function verifyEnvelopeProof(
  proof: Record<string, unknown>,
  asked: string | null,
  mirror: MirrorOptions,
  output: Output,
): Promise<number> {
  const topicId = String(proof?.hcs_topic_id ?? '');
  const seq = Number(proof?.hcs_sequence_number);
  if (!/^\d+\.\d+\.\d+$/.test(topicId) || !Number.isSafeInteger(seq) || seq < 1) {
    throw new UsageError('the proof names no hcs_topic_id and hcs_sequence_number');
  }
  const whole = proof.hcs_chunks === 1 && typeof proof.message === 'string';
  const message = whole ? (proof.message as string) : undefined;
  const onHcs = await verifyMessage(mirror, topicId, seq, message);
  const other =
    notAsked(asked, proof.wire_id) ?? (onHcs.ok ? namedWireProblem(proof.wire_id, message) : null);
  const checked = other ? { ok: false, reason: other } : onHcs;
  const result = {
    ok: checked.ok,
    wire_id: proof.wire_id,
    hcs_topic_id: topicId,
    hcs_sequence_number: seq,
    ...(checked.reason ? { reason: checked.reason } : {}),
  };
  const human = checked.ok
    ? `ok: Wire ${String(proof.wire_id)} is message ${topicId}#${seq}, its running hash follows`
    : `FAILED: ${checked.reason}`;
  return report(output, result, human);
}
