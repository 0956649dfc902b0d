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

  it('answers a frame it cannot use with an error frame, keeps the socket, and still honours good acks', async () => {
    const stream = uniqueStream();
    const sub = await Subscriber.open(stream, 0, { ack: false });
    for (let i = 0; i < 40; i++) await post(stream, wire11(stream));
    await sub.until(() => sub.seqs.length === 32);
    const errors = () => sub.frames.filter((f) => f.kind === 'error') as { detail?: string }[];
    const bad: [string | Uint8Array, string][] = [
      ['ack 16', 'frame is not JSON; expected {"kind":"ack","seq":N} or {"kind":"ping"}'],
      ['{"kind":"akc","seq":16}', 'unknown frame kind "akc"; expected "ack" or "ping"'],
      ['[]', 'unknown frame kind null; expected "ack" or "ping"'],
      ['{"kind":"ack","seq":"16"}', 'ack.seq must be a non-negative integer, got "16"'],
      ['{"kind":"ack","seq":-1}', 'ack.seq must be a non-negative integer, got -1'],
      ['{"kind":"ack","seq":33}', 'ack.seq 33 is past the last Wire sent (32)'],
      [new Uint8Array([1, 2]), 'binary frames are not accepted; send JSON text'],
    ];
    for (const [frame, detail] of bad) {
      const before = errors().length;
      sub.ws.send(frame);
      await sub.until(() => errors().length === before + 1);
      expect(errors().at(-1)).toEqual({ kind: 'error', detail });
    }
    // None of them moved the window; a ping spelt with spaces gets its pong.
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.seqs).toEqual(range(1, 32));
    sub.ws.send('{ "kind": "ping" }');
    await sub.until(() => sub.frames.some((f) => f.kind === 'pong'));
    // An old or repeated ack is not an error.
    sub.ws.send(JSON.stringify({ kind: 'ack', seq: 16 }));
    sub.ws.send(JSON.stringify({ kind: 'ack', seq: 16 }));
    await sub.until(() => sub.seqs.length === 40);
    expect(sub.seqs).toEqual(range(1, 40));
    expect(errors()).toHaveLength(bad.length);
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
