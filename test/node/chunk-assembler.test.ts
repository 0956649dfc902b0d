import { describe, expect, it } from 'vitest';
import { ChunkAssembler, MAX_CHUNKS, type MirrorMessage } from '../../src/anchor/mirror';

/**
 * Reassembling chunked HCS messages from mirror data (the listener, a rebuild
 * from the mirror, `wirestream verify`). Topics are public, and the network
 * checks nothing in `chunk_info`: anyone may post a chunk naming any message's
 * initial transaction id, any number and any total.
 */

const OURS = '0.0.2';
const STRANGER = '0.0.9001';
let seq = 0;

/** A mirror message carrying `text` as chunk `number` of `total` of the message begun at `start`. */
function chunk(
  text: string,
  number: number,
  total: number,
  opts: { start?: string; payer?: string; at?: number } = {},
): MirrorMessage {
  seq += 1;
  return {
    consensus_timestamp: `${opts.at ?? 1_700_000_000 + seq}.000000001`,
    topic_id: '0.0.5005',
    message: Buffer.from(text).toString('base64'),
    payer_account_id: opts.payer ?? OURS,
    running_hash: 'AA==',
    running_hash_version: 3,
    sequence_number: seq,
    chunk_info: {
      initial_transaction_id: {
        account_id: OURS,
        transaction_valid_start: opts.start ?? '1700000000.000000100',
      },
      number,
      total,
    },
  };
}

const text = (m: { bytes: Uint8Array } | null) => (m ? Buffer.from(m.bytes).toString() : null);

describe('reassembling chunked messages', () => {
  it('assembles a message from its chunks in any order, interleaved with others', () => {
    const a = new ChunkAssembler();
    expect(a.add(chunk('lo', 2, 2))).toBeNull();
    expect(a.add(chunk('x', 1, 2, { start: '1700000001.000000000' }))).toBeNull();
    const whole = a.add(chunk('hel', 1, 2));
    expect(text(whole)).toBe('hello');
    expect(whole?.chunks).toBe(2);
    expect(a.pending()).toHaveLength(1);
  });

  it("ignores a stranger's chunk naming our message: it neither corrupts nor completes it", () => {
    const a = new ChunkAssembler();
    expect(a.add(chunk('{"wire":', 1, 2))).toBeNull();
    // Posted by another account under our initial transaction id, before our chunk 2.
    expect(a.add(chunk('"forged"}', 2, 2, { payer: STRANGER }))).toBeNull();
    expect(text(a.add(chunk('"1.1"}', 2, 2)))).toBe('{"wire":"1.1"}');
  });

  it('never completes with a chunk numbered beyond its total, or one whose total differs', () => {
    const a = new ChunkAssembler();
    expect(a.add(chunk('a', 1, 2))).toBeNull();
    expect(a.add(chunk('b', 5, 2))).toBeNull();
    expect(a.add(chunk('c', 2, 3))).toBeNull();
    expect(a.pending().map((m) => m.chunk_info?.number)).toEqual([1]);
    expect(text(a.add(chunk('d', 2, 2)))).toBe('ad');
  });

  it('keeps nothing of a message claiming more chunks than any can have', () => {
    const a = new ChunkAssembler();
    expect(a.add(chunk('a', 1, MAX_CHUNKS + 1))).toBeNull();
    expect(a.pending()).toEqual([]);
    expect(a.add(chunk('a', 1, MAX_CHUNKS))).toBeNull();
    expect(a.pending()).toHaveLength(1);
  });

  it('drops a message still missing chunks 15 minutes after its first, also after a restart', () => {
    const a = new ChunkAssembler();
    const t0 = 1_800_000_000;
    expect(a.add(chunk('a', 1, 2, { start: '1800000000.000000000', at: t0 }))).toBeNull();
    expect(a.add(chunk('b', 1, 3, { start: '1800000600.000000000', at: t0 + 600 }))).toBeNull();
    expect(a.pending()).toHaveLength(2);
    // Restarted from what was pending: ages come from consensus time, not the clock.
    const b = new ChunkAssembler(a.pending());
    expect(b.add(chunk('c', 1, 2, { start: '1800000901.000000000', at: t0 + 901 }))).toBeNull();
    expect(b.pending().map((m) => Buffer.from(m.message, 'base64').toString())).toEqual(['b', 'c']);
    // A late chunk of the dropped message completes nothing.
    expect(b.add(chunk('z', 2, 2, { start: '1800000000.000000000', at: t0 + 902 }))).toBeNull();
  });
});
