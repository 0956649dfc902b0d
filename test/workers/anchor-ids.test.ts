import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { DirectoryApi } from '../../src/topic/topic-directory';
import { mirrorMessages, untilAnchored } from './helpers/anchoring';
import { post, uniqueStream, wire11 } from './helpers/wires';

// Every transaction id the coordinator signs comes from the TopicDirectory,
// so TopicObjects in different isolates (on Cloudflare, different machines)
// never sign two messages under one id: HCS would refuse the second as a
// duplicate, and its receipt would be the other message's.

const directoryStub = () => env.TOPIC_DIRECTORY.get(env.TOPIC_DIRECTORY.idFromName('directory'));
const directory = () => directoryStub() as unknown as DirectoryApi;
const ns = (validStart: string) => {
  const [s = '0', n = '0'] = validStart.split('.');
  return BigInt(s) * 1_000_000_000n + BigInt(n.padEnd(9, '0'));
};

describe('transaction ids', () => {
  it('are handed out in ranges that never overlap, however many callers ask at once', async () => {
    const asks = Array.from({ length: 40 }, (_, i) => [1, (i % 3) + 1, 20]);
    const before = BigInt(Date.now()) * 1_000_000n;
    const answers = await Promise.all(asks.map((chunks) => directory().validStarts(chunks)));
    const ranges = answers
      .flatMap((starts, i) =>
        starts.map((s, j) => [BigInt(s), BigInt(s) + BigInt(asks[i]?.[j] ?? 0) - 1n] as const),
      )
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    expect(ranges).toHaveLength(120);
    for (let k = 1; k < ranges.length; k++) {
      expect(ranges[k]?.[0]).toBeGreaterThan(ranges[k - 1]?.[1] ?? 0n);
    }
    // Backdated about 3 s, as the SDK does, and never in the future.
    expect(ranges[0]?.[0]).toBeLessThanOrEqual(before - 2_000_000_000n);
    expect(ranges.at(-1)?.[1]).toBeLessThan(before);
  });

  it("go on after the last one handed out to any isolate, not from this isolate's clock", async () => {
    // Another isolate's TopicObject was handed an id 2 s ago, ahead of this
    // isolate's backdated clock (3 s) and its random nanoseconds.
    const mark = (BigInt(Date.now()) - 2000n) * 1_000_000n + 123n;
    await runInDurableObject(directoryStub(), (_o, state) => {
      state.storage.sql.exec(
        `INSERT INTO meta (key, value) VALUES ('tx_mark', ?)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        String(mark),
      );
    });
    const streamId = uniqueStream('project');
    const topic = `project.${streamId.slice('project:'.length)}`;
    // Two Wires: one message, then one of two chunks (ids 1 ns apart).
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const big = wire11(streamId, {
      correlation_id: null,
      payload: { concern: 'the quick brown fox jumps over the lazy dog. '.repeat(35) },
    });
    expect((await post(streamId, big)).status).toBe(201);
    const wires = await untilAnchored(streamId, [topic]);
    expect(wires.map((w) => w.anchor.status)).toEqual(['anchored', 'anchored']);

    const starts = (await mirrorMessages(wires[0]?.anchor.hcs_topic_id ?? '')).map((m) =>
      ns(m.chunk_info?.initial_transaction_id.transaction_valid_start ?? '0'),
    );
    // The first Wire, then both chunks of the second (each names its
    // message's first id): all after the mark (the topic's creation took the
    // id right after it), in order.
    expect(starts).toHaveLength(3);
    expect(starts[0]).toBeGreaterThan(mark);
    expect(starts[0]).toBeLessThan(mark + 1_000_000_000n);
    expect(starts[2]).toBe(starts[1]);
    expect(starts[1]).toBeGreaterThan(starts[0] ?? 0n);
  });
});
