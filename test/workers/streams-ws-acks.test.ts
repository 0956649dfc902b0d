import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { StreamObject } from '../../src/stream/stream-object';
import { Subscriber } from './helpers/subscriber';
import { post, uniqueStream, wire11 } from './helpers/wires';

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The `acked` a socket of `stream` would resume from after hibernation. */
async function savedAck(stream: string): Promise<number | undefined> {
  const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
  return runInDurableObject(stub, (_o: StreamObject, state) => {
    const saved = state.getWebSockets()[0]?.deserializeAttachment() as { acked?: number } | null;
    return saved?.acked;
  });
}

describe('acknowledgements', () => {
  it('announces its window and ack policy first, then paces by lazy acks', async () => {
    const stream = uniqueStream();
    const sub = await Subscriber.open(stream, 0, { ack: false });
    await sub.until(() => sub.frames.length > 0);
    // Window is 32 in tests: ack every 16 Wires or within a second.
    expect(sub.frames[0]).toEqual({ kind: 'hello', window: 32, ack_every: 16, ack_ms: 1000 });
    for (let i = 0; i < 40; i++) await post(stream, wire11(stream));
    await sub.until(() => sub.seqs.length === 32);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.seqs).toEqual(range(1, 32)); // the window is full until the client acks
    // One ack for half the window makes room for the rest.
    sub.ws.send(JSON.stringify({ kind: 'ack', seq: 16 }));
    await sub.until(() => sub.seqs.length === 40);
    expect(sub.seqs).toEqual(range(1, 40));
    expect(sub.closed).toBeNull();
    sub.close();
  });

  it('after hibernation resumes each socket from its last ack, re-sending only the unacknowledged tail', async () => {
    const stream = uniqueStream();
    const sub = await Subscriber.open(stream, 0, { ack: false });
    for (let i = 0; i < 5; i++) await post(stream, wire11(stream));
    await sub.until(() => sub.seqs.length === 5 && sub.frames.some((f) => f.kind === 'caught-up'));
    sub.ws.send(JSON.stringify({ kind: 'ack', seq: 3 }));
    const deadline = Date.now() + 5000;
    while ((await savedAck(stream)) !== 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // What hibernation leaves: storage and the sockets' attachments. A new
    // instance rebuilt from them sends 4 and 5 again (the client SDK drops
    // repeats by stream_seq), and not `caught-up` a second time.
    const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
    await runInDurableObject(stub, async (_old: StreamObject, state) => {
      new StreamObject(state, env);
      await new Promise((r) => setTimeout(r, 50));
    });
    await sub.until(() => sub.seqs.length === 7);
    expect(sub.seqs).toEqual([1, 2, 3, 4, 5, 4, 5]);
    expect(sub.frames.filter((f) => f.kind === 'caught-up')).toHaveLength(1);
    sub.close();
  });
});
