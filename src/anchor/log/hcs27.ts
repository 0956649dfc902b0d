import { parseBase64Url, toBase64Url } from '../../protocol/base64';
import { type Checkpoint, parseCheckpoint } from './note';

/**
 * The HCS message of a log-mode checkpoint: a Hashgraph Online HCS-27
 * `register` message (transparency-log checkpoints, `ans-checkpoint-v1`
 * metadata) whose metadata states the tree size, root and previous
 * checkpoint as HCS-27 tooling reads them, and carries the C2SP signed note
 * itself in the extension field `metadata.note` (HCS-27 lets metadata carry
 * extra fields), so C2SP tooling still verifies the note:
 *
 *   {"p":"hcs-27","op":"register","metadata":{"type":"ans-checkpoint-v1",
 *    "stream":{"registry":"wirestream","log_id":<origin>},
 *    "log":{"alg":"sha-256","leaf":"sha256(0x00||jcs(envelope))","merkle":"rfc9162"},
 *    "root":{"treeSize":"N","rootHashB64u":…},"prev":{…},"note":<signed note>}}
 *
 * HCS-27's optional `sig` is left out: the log key's signature is the note's,
 * over the note text (which fixes origin, size and root), not over the JSON.
 */

export const HCS27_REGISTRY = 'wirestream';
/** The leaf rule, RFC 9162 §2.1.1 over the RFC 8785 JSON of the anchored envelope. */
export const HCS27_LEAF = 'sha256(0x00||jcs(envelope))';

interface Commitment {
  treeSize: string;
  rootHashB64u: string;
}

const commitment = (c: Pick<Checkpoint, 'size' | 'root'>): Commitment => ({
  treeSize: String(c.size),
  rootHashB64u: toBase64Url(c.root),
});

/** The checkpoint a signed note's text states (unverified), or null. */
export function noteCheckpoint(note: string): Checkpoint | null {
  const split = note.lastIndexOf('\n\n');
  return split < 0 ? null : parseCheckpoint(note.slice(0, split + 1));
}

/** The HCS-27 message for `note`, committing to the checkpoint `previous` (its HCS message). */
export function checkpointMessage(note: string, previous: string | null): string {
  const cp = noteCheckpoint(note);
  if (!cp) throw new Error('not a signed checkpoint note');
  const before = previous === null ? null : readCheckpointMessage(previous);
  if (before && !before.ok) throw new Error(`previous checkpoint: ${before.reason}`);
  return JSON.stringify({
    p: 'hcs-27',
    op: 'register',
    metadata: {
      type: 'ans-checkpoint-v1',
      stream: { registry: HCS27_REGISTRY, log_id: cp.origin },
      log: { alg: 'sha-256', leaf: HCS27_LEAF, merkle: 'rfc9162' },
      root: commitment(cp),
      ...(before ? { prev: commitment(before.checkpoint) } : {}),
      note,
    },
  });
}

export type CheckpointMessage =
  | {
      ok: true;
      /** The C2SP signed note (not yet verified: open it with the log's key). */
      note: string;
      /** What the note states, which the metadata agrees with. */
      checkpoint: Checkpoint;
      /** The previous checkpoint the metadata names; null for the first. */
      prev: { size: number; root: string } | null;
    }
  | {
      ok: false;
      reason: string;
      /** The log it says it is a checkpoint of (`metadata.stream.log_id`), if it names one. */
      logId: string | null;
    };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isUint = (v: unknown): v is string => typeof v === 'string' && /^(0|[1-9]\d{0,15})$/.test(v);
const isB64u = (v: unknown): v is string => {
  const bytes = typeof v === 'string' && v.length > 0 ? parseBase64Url(v) : null;
  return bytes !== null && bytes.length > 0 && toBase64Url(bytes) === v;
};
const isCommitment = (v: unknown) => isObject(v) && isUint(v.treeSize) && isB64u(v.rootHashB64u);
const filled = (v: unknown) => typeof v === 'string' && v.length > 0;

/** Why `m` breaks HCS-27's checkpoint schema (or our use of it), else null. */
function schemaProblem(m: Record<string, unknown>): string | null {
  const md = m.metadata;
  if (m.op !== 'register') return 'op is not "register"';
  if (m.m !== undefined && (typeof m.m !== 'string' || m.m.length > 299))
    return 'm is not a string of at most 299 characters';
  if (!isObject(md)) return 'metadata is not inline (an HCS-1 reference is not read here)';
  if (md.type !== 'ans-checkpoint-v1') return 'metadata.type is not "ans-checkpoint-v1"';
  const { stream, log } = md;
  if (!isObject(stream) || !filled(stream.registry) || !filled(stream.log_id))
    return 'metadata.stream needs registry and log_id';
  if (!isObject(log) || log.alg !== 'sha-256' || !filled(log.leaf) || log.merkle !== 'rfc9162')
    return 'metadata.log is not {alg: "sha-256", leaf, merkle: "rfc9162"}';
  if (!isCommitment(md.root)) return 'metadata.root needs treeSize and rootHashB64u';
  if (md.prev !== undefined && !isCommitment(md.prev))
    return 'metadata.prev needs treeSize and rootHashB64u';
  if (typeof md.note !== 'string') return 'metadata.note (the C2SP signed note) is missing';
  return null;
}

/**
 * Reads a checkpoint's HCS message: null if it is not an HCS-27 message at
 * all; else the note it carries, once its metadata is valid HCS-27 and
 * agrees with the note (log id = origin, tree size, root, a `prev` exactly
 * when the note has a `prev` line). The note's signature is the caller's.
 */
export function readCheckpointMessage(text: string): CheckpointMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(m) || m.p !== 'hcs-27') return null;
  const named =
    isObject(m.metadata) && isObject(m.metadata.stream) ? m.metadata.stream.log_id : null;
  const logId = typeof named === 'string' ? named : null;
  const bad = (reason: string) => ({
    ok: false as const,
    reason: `HCS-27 message: ${reason}`,
    logId,
  });
  const problem = schemaProblem(m);
  if (problem) return bad(problem);
  const md = m.metadata as {
    stream: { log_id: string };
    root: Commitment;
    prev?: Commitment;
    note: string;
  };
  const cp = noteCheckpoint(md.note);
  if (!cp) return bad('metadata.note is not a signed C2SP checkpoint');
  const disagree = (field: string, meta: string, note: string) =>
    bad(`metadata.${field} is ${meta}, the signed note says ${note}`);
  const root = toBase64Url(cp.root);
  if (md.stream.log_id !== cp.origin) return disagree('stream.log_id', md.stream.log_id, cp.origin);
  if (md.root.treeSize !== String(cp.size))
    return disagree('root.treeSize', md.root.treeSize, String(cp.size));
  if (md.root.rootHashB64u !== root)
    return disagree('root.rootHashB64u', md.root.rootHashB64u, root);
  const prevLine = cp.extensions.some((l) => l.startsWith('prev '));
  const { prev } = md;
  if (!prev !== !prevLine)
    return bad(
      `metadata.prev is ${prev ? 'given' : 'missing'}, the signed note has ${prevLine ? 'a' : 'no'} prev line`,
    );
  if (prev && Number(prev.treeSize) > cp.size)
    return bad(`metadata.prev.treeSize ${prev.treeSize} is above the tree size ${cp.size}`);
  return {
    ok: true,
    note: md.note,
    checkpoint: cp,
    prev: prev ? { size: Number(prev.treeSize), root: prev.rootHashB64u } : null,
  };
}

/** Why `read`'s `prev` is not the checkpoint `before` (size and root), else null. */
export function prevProblem(
  read: { prev: { size: number; root: string } | null },
  before: Pick<Checkpoint, 'size' | 'root'>,
): string | null {
  const want = commitment(before);
  if (!read.prev) return 'HCS-27 metadata.prev is missing';
  if (read.prev.size !== before.size || read.prev.root !== want.rootHashB64u)
    return `HCS-27 metadata.prev is ${read.prev.size} leaves, root ${read.prev.root}; the checkpoint before it is ${before.size} leaves, root ${want.rootHashB64u}`;
  return null;
}

/** The note inside a stored checkpoint message (a bare note as it is, from before HCS-27). */
export function noteOfMessage(message: string): string {
  const read = readCheckpointMessage(message);
  return read?.ok ? read.note : message;
}
