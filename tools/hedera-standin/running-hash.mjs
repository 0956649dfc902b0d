// @ts-check
// Running hash v3, byte for byte as Hedera computes it for a topic message
// (see `topicRunningHash` in services_transaction_receipt.proto): SHA-384 over
// the previous hash, the version, payer and topic ids, the consensus time, the
// sequence number and SHA-384 of the message, all integers big-endian.
import { createHash } from 'node:crypto';

export const RUNNING_HASH_VERSION = 3;
export const RUNNING_HASH_BYTES = 48;

/**
 * @param {{
 *   previous: Uint8Array,
 *   payer: { shard: bigint, realm: bigint, num: bigint },
 *   topic: { shard: bigint, realm: bigint, num: bigint },
 *   consensusSeconds: bigint,
 *   consensusNanos: number,
 *   sequenceNumber: bigint,
 *   message: Uint8Array,
 * }} input
 * @returns {Buffer} 48 bytes
 */
export function runningHashV3(input) {
  if (input.previous.length !== RUNNING_HASH_BYTES) {
    throw new Error(`previous running hash must be ${RUNNING_HASH_BYTES} bytes`);
  }
  const fixed = Buffer.alloc(8 * 9 + 4);
  let at = 0;
  /** @param {bigint} v */
  const u64 = (v) => {
    fixed.writeBigUInt64BE(v, at);
    at += 8;
  };
  u64(BigInt(RUNNING_HASH_VERSION));
  u64(input.payer.shard);
  u64(input.payer.realm);
  u64(input.payer.num);
  u64(input.topic.shard);
  u64(input.topic.realm);
  u64(input.topic.num);
  u64(input.consensusSeconds);
  fixed.writeUInt32BE(input.consensusNanos, at);
  at += 4;
  u64(input.sequenceNumber);
  const messageHash = createHash('sha384').update(input.message).digest();
  return createHash('sha384').update(input.previous).update(fixed).update(messageHash).digest();
}
