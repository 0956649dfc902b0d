import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { StreamObject } from '../../src/stream/stream-object';
import { authHeaders } from './helpers/auth';
import { Subscriber } from './helpers/subscriber';
import { post, problemOf, readAll, uniqueStream, wire11 } from './helpers/wires';

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('following a stream live over WebSocket', () => {
  it('replays everything after after_seq, then live Wires, once each and in order', async () => {
    const stream = uniqueStream();
    for (let i = 0; i < 5; i++) await post(stream, wire11(stream));
    const sub = await Subscriber.open(stream, 2);
    await sub.until(() => sub.frames.some((f) => f.kind === 'caught-up'));
    for (let i = 0; i < 5; i++) await post(stream, wire11(stream));
    await sub.until(() => sub.seqs.length === 8);
    expect(sub.seqs).toEqual(range(3, 10));
    sub.close();
  });

  it('gives a subscriber that joins mid-stream while appends continue every Wire once, in order', async () => {
    const stream = uniqueStream();
    for (let i = 0; i < 20; i++) await post(stream, wire11(stream));
    // Appends keep landing while the subscriber connects and is replayed to.
    const writer = (async () => {
      for (let i = 0; i < 60; i++) await post(stream, wire11(stream));
    })();
    await new Promise((r) => setTimeout(r, 5));
    const sub = await Subscriber.open(stream, 10);
    await writer;
    await sub.until(() => sub.seqs.length >= 70);
    expect(sub.seqs).toEqual(range(11, 80));
    sub.close();
  });

  it('gives each of 60 subscribers every Wire once, in order, when flushes are spaced apart', async () => {
    // 60 sockets: flushes are at least flushGapMs(60) = 2 ms apart, so Wires
    // landing close behind a flush wait for the next one; none may be stranded.
    const stream = uniqueStream();
    const subs = await Promise.all(Array.from({ length: 60 }, () => Subscriber.open(stream, 0)));
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(Array.from({ length: 10 }, () => post(stream, wire11(stream))));
    }
    await post(stream, wire11(stream)); // a lone Wire right behind the batches
    for (const sub of subs) {
      await sub.until(() => sub.seqs.length >= 41);
      expect(sub.seqs).toEqual(range(1, 41));
      sub.close();
    }
  });

  it('closes a subscriber that never acknowledges with 4008 and where to resume', async () => {
    const stream = uniqueStream();
    const sub = await Subscriber.open(stream, 0, { ack: false });
    // Window is 32 in tests; the socket is dropped once it is 64 behind.
    for (let i = 0; i < 70; i++) await post(stream, wire11(stream));
    await sub
      .until(() => sub.closed !== null)
      .catch((e) => {
        throw new Error(`${e} frames=${JSON.stringify(sub.frames.map((f) => f.kind))}`);
      });
    expect(sub.closed?.code).toBe(4008);
    const resume = Number(/after_seq=(\d+)/.exec(sub.closed?.reason ?? '')?.[1]);
    expect(resume).toBe(sub.seqs.at(-1));
    // Resuming from the hint gives the rest with no gap.
    const again = await Subscriber.open(stream, resume);
    await again.until(() => again.seqs.at(-1) === 70);
    expect([...sub.seqs, ...again.seqs]).toEqual(range(1, 70));
    again.close();
  }, 20_000);

  it('keeps a subscriber that acks each window through a long replay while Wires keep arriving', async () => {
    const stream = uniqueStream();
    await Promise.all(Array.from({ length: 150 }, () => post(stream, wire11(stream))));
    const sub = await Subscriber.open(stream, 0, { ack: false });
    const caughtUp = () => sub.frames.some((f) => f.kind === 'caught-up');
    // Window is 32 in tests: the replay is far more than two windows behind
    // the head, and a Wire lands before each ack, as it would on a busy stream.
    let total = 150;
    while (!caughtUp() && sub.closed === null) {
      const seen = sub.seqs.length;
      await sub.until(() => sub.seqs.length > seen || sub.closed !== null || caughtUp());
      if (sub.closed !== null) break;
      await post(stream, wire11(stream));
      total++;
      sub.ws.send(JSON.stringify({ kind: 'ack', seq: sub.seqs.at(-1) }));
    }
    expect(sub.closed).toBeNull();
    await sub.until(() => sub.seqs.length === total);
    expect(sub.seqs).toEqual(range(1, total));
    sub.close();
  }, 60_000);

  it('closes a replaying subscriber that never acks once two windows of Wires arrive after it', async () => {
    const stream = uniqueStream();
    await Promise.all(Array.from({ length: 40 }, () => post(stream, wire11(stream))));
    const sub = await Subscriber.open(stream, 0, { ack: false });
    await sub.until(() => sub.seqs.length === 32);
    // Two windows (64) past the head it last heard of are tolerated, not one more.
    await Promise.all(Array.from({ length: 64 }, () => post(stream, wire11(stream))));
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.closed).toBeNull();
    await post(stream, wire11(stream));
    await sub.until(() => sub.closed !== null);
    expect(sub.closed).toEqual({ code: 4008, reason: 'slow consumer: resume with after_seq=32' });
  }, 60_000);

  it('paces a long replay by acknowledgements instead of dropping the subscriber', async () => {
    const stream = uniqueStream();
    await Promise.all(Array.from({ length: 100 }, () => post(stream, wire11(stream))));
    const sub = await Subscriber.open(stream, 0);
    await sub.until(() => sub.seqs.length === 100);
    expect(sub.seqs).toEqual(range(1, 100));
    expect(sub.closed).toBeNull();
    sub.close();
    // Under 1 s alone; 15-20 s behind the two replay tests above, whose ~250
    // Wires the same workerd is still anchoring.
  }, 60_000);

  it('refuses a resume past the head with a problem naming the head, instead of a silent socket', async () => {
    const stream = uniqueStream();
    for (let i = 0; i < 3; i++) await post(stream, wire11(stream));
    const ahead = await SELF.fetch(`https://ws.test/v1/streams/${stream}/ws?after_seq=10`, {
      headers: { ...(await authHeaders()), Upgrade: 'websocket' },
    });
    expect(ahead.status).toBe(400);
    expect(ahead.webSocket).toBeNull();
    const problem = await problemOf(ahead);
    expect(problem.detail).toBe(
      "after_seq=10 is past the stream's last_seq 3: resume from at most 3",
    );
    expect(problem.last_seq).toBe(3);
    const next = await SELF.fetch(`https://ws.test/v1/streams/${stream}/ws?after_seq=4`, {
      headers: { ...(await authHeaders()), Upgrade: 'websocket' },
    });
    expect(next.status).toBe(400);
    // At the head is fine: caught up at once, then live.
    const sub = await Subscriber.open(stream, 3);
    await sub.until(() => sub.frames.some((f) => f.kind === 'caught-up'));
    await post(stream, wire11(stream));
    await sub.until(() => sub.seqs.length === 1);
    expect(sub.seqs).toEqual([4]);
    sub.close();
  });

  it('refuses a plain GET on the WebSocket path with a problem', async () => {
    const res = await SELF.fetch(`https://ws.test/v1/streams/${uniqueStream()}/ws`, {
      headers: await authHeaders(),
    });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).detail).toContain('WebSocket upgrade');
  });
});

describe('durability', () => {
  it('rebuilds every Wire, the seq counter and idempotency from storage in a fresh instance', async () => {
    const stream = uniqueStream();
    const first = wire11(stream);
    await post(stream, first);
    await post(stream, wire11(stream));
    // What an eviction leaves: the object's durable storage and nothing else.
    // A new StreamObject over the same storage must see exactly what was stored.
    const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
    const { seqs, next } = await runInDurableObject(stub, (_old: StreamObject, state) => {
      const fresh = new StreamObject(state, env);
      return {
        seqs: fresh.read(0, 10).wires.map((w) => w.stream_seq),
        next: fresh.info()?.last_seq,
      };
    });
    expect(seqs).toEqual([1, 2]);
    expect(next).toBe(2);
    // And through the API, the stored Wire is still recognised as a replay.
    expect((await post(stream, first)).status).toBe(200);
    const after = (await (await post(stream, wire11(stream))).json()) as { stream_seq: number };
    expect(after.stream_seq).toBe(3);
    expect((await readAll(stream)).map((w) => w.stream_seq)).toEqual([1, 2, 3]);
  });
});
