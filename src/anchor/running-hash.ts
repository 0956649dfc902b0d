import { fromBase64, toBase64 } from '../protocol/base64';

/**
 * HCS running hash, version 3: SHA-384 over the previous running hash (48 B),
 * the version, the payer account, the topic, the consensus time, the sequence
 * number and SHA-384 of the message, all integers big-endian. See
 * `services/transaction_receipt.proto` (`topicRunningHash`) in @hashgraph/proto.
 */
export const RUNNING_HASH_VERSION = 3;
export const RUNNING_HASH_BYTES = 48;

export interface EntityNum {
  shard: number;
  realm: number;
  num: number;
}

export interface RunningHashInput {
  previous: Uint8Array;
  payer: EntityNum;
  topic: EntityNum;
  consensusSeconds: number;
  consensusNanos: number;
  sequenceNumber: number;
  message: Uint8Array;
}

/** The zero hash a topic starts from. */
export function emptyRunningHash(): Uint8Array {
  return new Uint8Array(RUNNING_HASH_BYTES);
}

export async function nextRunningHash(input: RunningHashInput): Promise<Uint8Array> {
  if (input.previous.length !== RUNNING_HASH_BYTES) {
    throw new Error(`previous running hash must be ${RUNNING_HASH_BYTES} bytes`);
  }
  const messageHash = new Uint8Array(await crypto.subtle.digest('SHA-384', input.message));
  const buf = new Uint8Array(RUNNING_HASH_BYTES + 8 * 8 + 4 + 8 + messageHash.length);
  const view = new DataView(buf.buffer);
  buf.set(input.previous, 0);
  let at = RUNNING_HASH_BYTES;
  const u64 = (n: number) => {
    view.setBigUint64(at, BigInt(n));
    at += 8;
  };
  u64(RUNNING_HASH_VERSION);
  u64(input.payer.shard);
  u64(input.payer.realm);
  u64(input.payer.num);
  u64(input.topic.shard);
  u64(input.topic.realm);
  u64(input.topic.num);
  u64(input.consensusSeconds);
  view.setUint32(at, input.consensusNanos);
  at += 4;
  u64(input.sequenceNumber);
  buf.set(messageHash, at);
  return new Uint8Array(await crypto.subtle.digest('SHA-384', buf));
}

/** Parses "0.0.1234". */
export function entityNum(id: string): EntityNum {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(id);
  if (!m) throw new Error(`not an entity id: ${id}`);
  return { shard: Number(m[1]), realm: Number(m[2]), num: Number(m[3]) };
}

/** Parses a mirror consensus timestamp "seconds.nanoseconds". */
export function splitTimestamp(ts: string): { seconds: number; nanos: number } {
  const [s = '0', n = '0'] = ts.split('.');
  return { seconds: Number(s), nanos: Number(n.padEnd(9, '0').slice(0, 9)) };
}

/** The fields of a mirror node message the chain is computed from. */
export interface ChainedMessage {
  consensus_timestamp: string;
  payer_account_id: string;
  sequence_number: number;
  message: string;
  running_hash: string;
}

export type ChainStep =
  | { ok: true; next: Uint8Array }
  | { ok: false; kind: 'sequence-gap'; next: Uint8Array }
  | { ok: false; kind: 'running-hash-mismatch'; next: Uint8Array; computed: string };

/**
 * Follows the chain by one mirror message after `lastSeq` and hash `prev`:
 * the recomputed hash, or why the message does not follow. Across a gap the
 * chain cannot be checked, so it resumes from the hash the mirror served.
 */
export async function stepChain(
  prev: Uint8Array,
  lastSeq: number,
  m: ChainedMessage,
  topicId: string,
): Promise<ChainStep> {
  if (m.sequence_number !== lastSeq + 1) {
    return { ok: false, kind: 'sequence-gap', next: fromBase64(m.running_hash) };
  }
  const { seconds, nanos } = splitTimestamp(m.consensus_timestamp);
  const next = await nextRunningHash({
    previous: prev,
    payer: entityNum(m.payer_account_id),
    topic: entityNum(topicId),
    consensusSeconds: seconds,
    consensusNanos: nanos,
    sequenceNumber: m.sequence_number,
    message: fromBase64(m.message),
  });
  const computed = toBase64(next);
  if (computed !== m.running_hash) {
    return { ok: false, kind: 'running-hash-mismatch', next, computed };
  }
  return { ok: true, next };
}
