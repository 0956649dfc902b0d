// HCS-27 (Hashgraph Online, transparency-log checkpoints) as its tooling reads
// a checkpoint message, written for the tests from the rules of the
// standards-sdk's schema (src/hcs-27/types.ts: hcs27CheckpointMessageSchema and
// hcs27CheckpointMetadataSchema) — not from src/, and without that SDK: a
// `register` message, inline `ans-checkpoint-v1` metadata (or an HCS-1
// reference with a digest), canonical unsigned-decimal tree sizes, strict
// unpadded base64url hashes, `prev.treeSize` ≤ `root.treeSize`, `m` at most
// 299 characters; unknown fields pass through. Plus where log mode puts the
// C2SP note: the extension field `metadata.note`.

/** One HCS message (a chunk) at most, as HCS-27 tooling publishes them. */
export const HCS_MESSAGE_BYTES = 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const filled = (v: unknown) => typeof v === 'string' && v.length > 0;
const uint = (v: unknown) => typeof v === 'string' && /^(0|[1-9]\d*)$/.test(v);
const b64u = (v: unknown) =>
  typeof v === 'string' &&
  /^[A-Za-z0-9_-]+$/.test(v) &&
  Buffer.from(v, 'base64url').length > 0 &&
  Buffer.from(v, 'base64url').toString('base64url') === v;
const commitment = (v: unknown) => isObj(v) && uint(v.treeSize) && b64u(v.rootHashB64u);

/** Where `message` breaks HCS-27's checkpoint-message schema ([]: it passes). */
export function hcs27SchemaProblems(message: unknown): string[] {
  if (!isObj(message)) return ['not a JSON object'];
  const found: string[] = [];
  const need = (ok: boolean, what: string) => ok || found.push(what);
  need(message.p === 'hcs-27', 'p');
  need(message.op === 'register', 'op');
  need(message.m === undefined || (typeof message.m === 'string' && message.m.length <= 299), 'm');
  const md = message.metadata;
  if (typeof md === 'string') {
    need(/^hcs:\/\/1\/\d+\.\d+\.\d+$/.test(md), 'metadata');
    need(isObj(message.metadata_digest), 'metadata_digest');
    return found;
  }
  if (!isObj(md)) return [...found, 'metadata'];
  need(md.type === 'ans-checkpoint-v1', 'metadata.type');
  const { stream, log } = md;
  need(isObj(stream) && filled(stream.registry) && filled(stream.log_id), 'metadata.stream');
  need(
    isObj(log) && log.alg === 'sha-256' && filled(log.leaf) && log.merkle === 'rfc9162',
    'metadata.log',
  );
  need(commitment(md.root), 'metadata.root');
  need(md.prev === undefined || commitment(md.prev), 'metadata.prev');
  need(
    md.sig === undefined ||
      (isObj(md.sig) && filled(md.sig.alg) && filled(md.sig.kid) && b64u(md.sig.b64u)),
    'metadata.sig',
  );
  if (commitment(md.root) && commitment(md.prev)) {
    const [root, prev] = [md.root as Obj, md.prev as Obj];
    need(
      BigInt(prev.treeSize as string) <= BigInt(root.treeSize as string),
      'metadata.prev.treeSize',
    );
  }
  return found;
}

export interface Hcs27Checkpoint {
  logId: string;
  size: number;
  root: Buffer;
  prev: { size: number; root: Buffer } | null;
  /** The C2SP signed note the message carries. */
  note: string;
}

/** A log-mode checkpoint message read as HCS-27 tooling would; null if it is not one. */
export function readHcs27(text: string): Hcs27Checkpoint | null {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  if (hcs27SchemaProblems(message).length > 0) return null;
  const md = (message as Obj).metadata as Obj;
  if (typeof md !== 'object' || typeof md.note !== 'string') return null;
  const [stream, root, prev] = [md.stream as Obj, md.root as Obj, md.prev as Obj | undefined];
  const commit = (c: Obj) => ({
    size: Number(c.treeSize),
    root: Buffer.from(c.rootHashB64u as string, 'base64url'),
  });
  return {
    logId: stream.log_id as string,
    ...commit(root),
    prev: prev ? commit(prev) : null,
    note: md.note,
  };
}

/** `note` in a log-mode HCS-27 message, stating what the note states (for forging checkpoints in tests). */
export function hcs27Envelope(
  note: string,
  prev: { size: number; root: Buffer } | null,
  root?: Buffer,
): string {
  const [origin = '', size = '', b64 = ''] = note.split('\n');
  const commit = (n: string | number, r: Buffer) => ({
    treeSize: String(n),
    rootHashB64u: r.toString('base64url'),
  });
  return JSON.stringify({
    p: 'hcs-27',
    op: 'register',
    metadata: {
      type: 'ans-checkpoint-v1',
      stream: { registry: 'wirestream', log_id: origin },
      log: { alg: 'sha-256', leaf: 'sha256(0x00||jcs(envelope))', merkle: 'rfc9162' },
      root: commit(size, root ?? Buffer.from(b64, 'base64')),
      ...(prev ? { prev: commit(prev.size, prev.root) } : {}),
      note,
    },
  });
}
