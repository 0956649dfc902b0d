import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Draft } from '../../src/protocol';
import type { StreamObject } from '../../src/stream/stream-object';
import { readAll, uniqueStream, wire11 } from './helpers/wires';

/**
 * The stream keeps its last Wires in memory for fan-out and the topic
 * hand-over (src/stream/wire-log.ts); older ones come from SQLite. 600 Wires
 * of ~1.3 KB pass the in-memory bound several times over, so reads land on
 * both sides of it and across it.
 */
describe('reading a stream back, across the in-memory tail', () => {
  // 600 appends: ~10 s alone, three times that beside a busy pool.
  it('serves every Wire in order, from memory and from SQLite alike', {
    timeout: 90_000,
  }, async () => {
    const streamId = uniqueStream('project');
    const stub = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    const filler = 'x'.repeat(1200);
    const ids: string[] = [];
    for (let i = 1; i <= 600; i++) {
      const wire = wire11(streamId, {
        correlation_id: null,
        payload: { concern: 'tail', notes: `${i} ${filler}` },
      });
      ids.push(wire.wire_id);
      const appended = await stub.append(wire as Draft);
      expect(appended.ok).toBe(true);
    }
    const seqs = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k);
    const read = (after: number, limit: number) =>
      runInDurableObject(stub, (object: StreamObject) => object.read(after, limit));

    const whole = await read(0, 1000);
    expect(whole.wires.map((w) => w.wire_id)).toEqual(ids);
    expect((await read(590, 5)).wires.map((w) => w.stream_seq)).toEqual(seqs(591, 5));
    expect((await read(100, 3)).wires.map((w) => w.stream_seq)).toEqual(seqs(101, 3));
    expect((await read(300, 400)).wires.map((w) => w.stream_seq)).toEqual(seqs(301, 300));
    expect((await read(600, 10)).wires).toEqual([]);
    const last = (await read(599, 1)).wires[0];
    expect(last?.payload).toEqual({ concern: 'tail', notes: `600 ${filler}` });

    // The API's pages agree, each Wire once.
    const served = await readAll(streamId);
    expect(served.map((w) => w.wire_id)).toEqual(ids);
  });
});
