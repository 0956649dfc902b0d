import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { WirestreamClient } from '../../src/client';
import type { AnchorRecord } from '../../src/protocol';
import { StreamObject } from '../../src/stream/stream-object';
import { tokenFor } from './helpers/auth';
import { SelfWebSocket } from './helpers/sdk-socket';
import { post, uniqueStream, wire11 } from './helpers/wires';

// The SDK's Subscription in workerd, following the Worker under test over
// SELF (helpers/sdk-socket.ts), for what only the SDK's side shows.

async function client(sender = 'agent:sdk-follow') {
  return new WirestreamClient({
    baseUrl: 'https://ws.test',
    sender,
    token: await tokenFor({ sub: sender }),
    fetch: (input, init) => SELF.fetch(input, init),
    WebSocket: SelfWebSocket,
  });
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: () => string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What the stream's one socket would resume from after hibernation. */
function savedAck(stream: string): Promise<number> {
  const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
  return runInDurableObject(stub, (_o: StreamObject, state) => {
    const saved = state.getWebSockets()[0]?.deserializeAttachment() as { acked?: number } | null;
    return saved?.acked ?? -1;
  });
}

/**
 * Holds back the anchor reports of Wires from `fromSeq` on (the running
 * object never hears of them); the rest go through. `release` undoes it.
 */
async function holdAnchors(stream: string, fromSeq: number) {
  const held: { topic: string; anchors: AnchorRecord[] }[] = [];
  const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
  let release = () => {};
  await runInDurableObject(stub, (running: StreamObject) => {
    // RPC calls the class's method: wrap it for this one instance.
    const proto = Object.getPrototypeOf(running) as Pick<StreamObject, 'markAnchored'>;
    const real = proto.markAnchored;
    proto.markAnchored = function (this: StreamObject, topic, anchors) {
      if (this !== running) return real.call(this, topic, anchors);
      const late = anchors.filter((a) => a.stream_seq >= fromSeq);
      if (late.length > 0) held.push({ topic, anchors: late });
      return real.call(
        this,
        topic,
        anchors.filter((a) => a.stream_seq < fromSeq),
      );
    };
    release = () => {
      proto.markAnchored = real;
    };
  });
  return { held, release: () => release() };
}

describe('the SDK following a stream', () => {
  it('tells onAnchored of Wires whose anchors woke the hibernated object, though they come again as repeats', async () => {
    const stream = uniqueStream();
    const hold = await holdAnchors(stream, 4);
    const seen: number[] = [];
    const anchored = new Set<number>();
    let finish = () => {};
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const sub = (await client()).subscribe(stream, {
      onWires: async (wires) => {
        seen.push(...wires.map((w) => w.stream_seq));
        if (wires.some((w) => w.stream_seq >= 4)) await slow; // a handler still busy with 4
      },
      onAnchored: (updates) => {
        for (const u of updates) anchored.add(u.stream_seq);
      },
    });
    try {
      for (let i = 0; i < 3; i++) await post(stream, wire11(stream));
      await until(
        async () => (await savedAck(stream)) === 3,
        5000,
        () => `seen ${seen}`,
      );
      await until(
        () => anchored.size === 3,
        10_000,
        () => `anchored ${[...anchored]}`,
      );
      // 4 and 5 reach the SDK, unacknowledged (its handler is busy), and are anchored on
      // HCS: the report is held back as if it came once the object hibernated.
      for (let i = 0; i < 2; i++) await post(stream, wire11(stream));
      await until(
        () => hold.held.flatMap((h) => h.anchors).length === 2,
        10_000,
        () => `held ${JSON.stringify(hold.held)}`,
      );
      expect(await savedAck(stream)).toBe(3);
      // The report wakes the object: rebuilt from its sockets' attachments, it
      // re-sends 4 and 5 (already anchored) to a client that holds them.
      hold.release();
      const stub = env.STREAMS.get(env.STREAMS.idFromName(stream));
      await runInDurableObject(stub, (_o: StreamObject, state) => {
        const woken = new StreamObject(state, env);
        for (const { topic, anchors } of hold.held) woken.markAnchored(topic, anchors);
      });
      await new Promise((r) => setTimeout(r, 200));
      finish();
      await until(
        () => anchored.size === 5,
        3000,
        () => `anchored ${[...anchored]}`,
      ).catch(() => {});
      expect([...anchored].sort()).toEqual([1, 2, 3, 4, 5]);
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    } finally {
      hold.release();
      finish();
      sub.close();
      await sub.closed.catch(() => {});
    }
  }, 60_000);
});
