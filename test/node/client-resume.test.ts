import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  type ServedWire,
  type SubscribeOptions,
  type SubscriptionState,
  type WebSocketConstructor,
  WirestreamClient,
  WirestreamError,
} from '../../src/client';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { type FlakyProxy, startFlakyProxy } from '../support/flaky-proxy';

const SENDER = 'agent:resume-test';
let server: DevServer;
let proxy: FlakyProxy;
let token: string | undefined;

beforeAll(async () => {
  // A small window so acks and the 4008 slow-consumer close are exercised.
  server = await startDevServer({ WS_MAX_BUFFERED_FRAMES: '16' });
  proxy = await startFlakyProxy(server.port);
  token = await tokenFor(server, SENDER);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

function client(baseUrl: string): WirestreamClient {
  return new WirestreamClient({
    baseUrl,
    sender: SENDER,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    reconnect: { baseMs: 20, maxMs: 200 },
    ...(token ? { token } : {}),
  });
}

async function appendMany(streamId: string, n: number, onEach?: (i: number) => void) {
  const writer = client(server.url);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    // Sequential batches keep the expected order equal to the append order.
    for (let j = i; j < Math.min(n, i + 10); j++) {
      const { receipt } = await writer.append(streamId, {
        type: 'review.concern',
        payload: { concern: `note ${j}` },
      });
      ids.push(receipt.wire_id);
      onEach?.(j);
    }
  }
  return ids;
}

/** Waits until `seen` holds `n` Wires (or fails after `ms`, saying how many came). */
function untilSeen(seen: unknown[], n: number, ms: number): Promise<void> {
  return until(
    () => seen.length >= n,
    ms,
    () => `saw ${seen.length} of ${n}`,
  );
}

function until(check: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out: ${what()}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

/**
 * Follows `streamId` with `c`, recording the seqs delivered, until it is
 * caught up at `last`; `more` adds to the failure message.
 */
async function followToCaughtUp(
  c: WirestreamClient,
  streamId: string,
  last: number,
  options: Omit<SubscribeOptions, 'onWires' | 'onCaughtUp'> = {},
  more: () => string = () => '',
) {
  const seen: number[] = [];
  let caughtUp = -1;
  const sub = c.subscribe(streamId, {
    ...options,
    onWires: (wires) => {
      seen.push(...wires.map((w) => w.stream_seq));
    },
    onCaughtUp: (at) => {
      caughtUp = at;
    },
  });
  await until(
    () => caughtUp === last,
    10_000,
    () => `caught up at ${caughtUp}${more()}`,
  );
  return { sub, seen };
}

describe('Subscription against a server that drops connections', () => {
  it('delivers every Wire exactly once, in order, while connections are cut mid-stream', async () => {
    const streamId = `project:resume-${Date.now().toString(36)}`;
    const seen: ServedWire[] = [];
    const states: SubscriptionState[] = [];
    const sub = client(proxy.url).subscribe(streamId, {
      onWires: (wires) => {
        seen.push(...wires);
      },
      onState: (state) => states.push(state),
    });
    let drops = 0;
    const ids = await appendMany(streamId, 300, (i) => {
      if (i % 25 === 12) drops += proxy.dropAll() > 0 ? 1 : 0;
    });
    await untilSeen(seen, 300, 30_000);
    sub.close();
    await sub.closed;

    expect(drops).toBeGreaterThanOrEqual(8);
    expect(states.filter((s) => s === 'reconnecting').length).toBeGreaterThanOrEqual(8);
    expect(seen.map((w) => w.stream_seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(seen.map((w) => w.wire_id)).toEqual(ids);
    expect(sub.lastSeq).toBe(300);
  }, 60_000);

  it('drains and resumes after the server closes a slow consumer with 4008', async () => {
    const streamId = `project:slow-${Date.now().toString(36)}`;
    const seen: number[] = [];
    const reasons: string[] = [];
    const sub = client(server.url).subscribe(streamId, {
      onWires: async (wires) => {
        await new Promise((r) => setTimeout(r, 30));
        seen.push(...wires.map((w) => w.stream_seq));
      },
      onState: (state, detail) => {
        if (state === 'reconnecting' && detail?.reason) reasons.push(detail.reason);
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    // Appends in parallel: far faster than the handler keeps up with.
    const writer = client(server.url);
    for (let i = 0; i < 200; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          writer.append(streamId, { type: 'review.concern', payload: { concern: `n${i + j}` } }),
        ),
      );
    }
    await untilSeen(seen, 200, 40_000);
    sub.close();
    await sub.closed;

    expect(reasons.some((r) => r.includes('slow consumer'))).toBe(true);
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  }, 60_000);

  it("stops with the server's reason when asked to resume past the stream's head", async () => {
    const streamId = `project:ahead-${Date.now().toString(36)}`;
    await appendMany(streamId, 3);
    const states: SubscriptionState[] = [];
    const sub = client(server.url).subscribe(streamId, {
      afterSeq: 50,
      onWires: () => {},
      onState: (state) => states.push(state),
    });
    const error = await sub.closed.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WirestreamError);
    expect(error).toMatchObject({
      code: 'invalid-query',
      detail: "after_seq=50 is past the stream's last_seq 3: resume from at most 3",
    });
    expect(states.at(-1)).toBe('closed');
  }, 30_000);

  it('resumes from a given stream_seq without repeating earlier Wires', async () => {
    const streamId = `project:from-${Date.now().toString(36)}`;
    await appendMany(streamId, 30);
    const { sub, seen } = await followToCaughtUp(client(server.url), streamId, 30, {
      afterSeq: 17,
    });
    sub.close();
    expect(seen).toEqual(Array.from({ length: 13 }, (_, i) => i + 18));
  }, 30_000);
});

/** A `ws` WebSocket that also records what the client sends (the server is real). */
/** A WebSocket that records what the client sends (and, given `urls`, where it connects). */
function recording(sent: string[], urls?: string[]): WebSocketConstructor {
  return class extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      urls?.push(String(args[0]));
      const send = this.send.bind(this);
      this.send = ((data: string) => {
        sent.push(data);
        send(data);
      }) as typeof this.send;
    }
  } as unknown as WebSocketConstructor;
}

describe('acknowledgements', () => {
  it("acks as the server's hello asks (half the window, or within ack_ms), not once per batch", async () => {
    const streamId = `project:acks-${Date.now().toString(36)}`;
    // 40 Wires against a window of 16: the replay only gets through on acks.
    await appendMany(streamId, 40);
    const sent: string[] = [];
    const acks = () =>
      sent
        .map((m) => JSON.parse(m) as { kind: string; seq?: number })
        .filter((m) => m.kind === 'ack')
        .map((m) => m.seq);
    const recorder = new WirestreamClient({
      baseUrl: server.url,
      sender: SENDER,
      WebSocket: recording(sent),
      ...(token ? { token } : {}),
    });
    const { sub, seen } = await followToCaughtUp(
      recorder,
      streamId,
      40,
      {},
      () => `, acks ${acks().join(',')}`,
    );
    // The server asks for an ack every 8 Wires (half of 16): one per 8 or more.
    const replayAcks = acks();
    expect(replayAcks.at(-1)).toBe(40);
    expect(replayAcks.length).toBeLessThanOrEqual(5);
    // Three live Wires, each its own frame: acked together within ack_ms (1 s).
    await appendMany(streamId, 3);
    await until(
      () => acks().at(-1) === 43,
      5_000,
      () => `acks ${acks().join(',')}`,
    );
    expect(acks().length - replayAcks.length).toBeLessThanOrEqual(2);
    sub.close();
    expect(seen).toEqual(Array.from({ length: 43 }, (_, i) => i + 1));
  }, 30_000);
});

describe('anchors on a live feed', () => {
  it('tells onAnchored every Wire once it is on HCS, also while Wires keep coming', async () => {
    const streamId = `project:anchors-${Date.now().toString(36)}`;
    const seen: number[] = [];
    const anchored = new Map<number, string>();
    const early: number[] = [];
    let live = false;
    const sub = client(server.url).subscribe(streamId, {
      onWires: (wires) => {
        for (const w of wires) {
          seen.push(w.stream_seq);
          // A Wire sent after it was anchored carries its anchor itself.
          if (w.anchor?.status === 'anchored') anchored.set(w.stream_seq, 'in the Wire');
        }
      },
      onCaughtUp: () => {
        live = true;
      },
      onAnchored: (updates) => {
        for (const u of updates) {
          // News only ever follows the Wire it is about.
          if (!seen.includes(u.stream_seq)) early.push(u.stream_seq);
          anchored.set(u.stream_seq, u.anchor.hcs_topic_id ?? '');
        }
      },
    });
    await until(
      () => live,
      10_000,
      () => 'never caught up',
    );
    // Wires at a steady pace: news comes back while later Wires go out, and
    // rides in their frames.
    const n = 25;
    const writer = client(server.url);
    for (let i = 0; i < n; i++) {
      await writer.append(streamId, { type: 'review.concern', payload: { concern: `n${i}` } });
      await new Promise((r) => setTimeout(r, 25));
    }
    await until(
      () => anchored.size === n,
      15_000,
      () => `anchored ${[...anchored.keys()].sort((a, b) => a - b).join(',')}`,
    );
    sub.close();
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(early).toEqual([]);
    expect([...anchored.values()].some((v) => /^0\.0\.\d+$/.test(v))).toBe(true);
  }, 40_000);
});

describe('anchors across a reconnect', () => {
  it('asks for the anchors it missed while the connection was down (anchors_from)', async () => {
    const streamId = `project:anchors-resume-${Date.now().toString(36)}`;
    const urls: string[] = [];
    const seen: number[] = [];
    const anchored = new Set<number>();
    const sub = new WirestreamClient({
      baseUrl: proxy.url,
      sender: SENDER,
      WebSocket: recording([], urls),
      reconnect: { baseMs: 20, maxMs: 200 },
      ...(token ? { token } : {}),
    }).subscribe(streamId, {
      onWires: (wires) => {
        seen.push(...wires.map((w) => w.stream_seq));
      },
      onAnchored: (updates) => {
        for (const u of updates) anchored.add(u.stream_seq);
      },
    });
    await appendMany(streamId, 2);
    await until(
      () => seen.length === 2,
      10_000,
      () => `saw ${seen.join(',')}`,
    );
    // Cut the connection while both are still pending (anchoring takes at
    // least the outbox's 100 ms round): news told while it is down reaches
    // no one, so the reconnect must ask for it.
    expect(anchored.size).toBe(0);
    proxy.dropAll();
    await until(
      () => anchored.size === 2,
      15_000,
      () => `anchored ${[...anchored].join(',')}; urls ${urls.join(' ')}`,
    );
    sub.close();
    expect(seen).toEqual([1, 2]);
    // The reconnect named the lowest Wire still pending.
    expect(new URL(urls[1] ?? '').searchParams.get('anchors_from')).toBe('1');
    expect(new URL(urls[1] ?? '').searchParams.get('after_seq')).toBe('2');
  }, 40_000);
});

describe('follow (async iterator)', () => {
  it('yields Wires in order across a dropped connection and stops cleanly on break', async () => {
    const streamId = `project:follow-${Date.now().toString(36)}`;
    await appendMany(streamId, 20);
    const seen: number[] = [];
    const reader = client(proxy.url);
    const more = appendMany(streamId, 20);
    for await (const wire of reader.follow(streamId)) {
      seen.push(wire.stream_seq);
      if (wire.stream_seq === 10) proxy.dropAll();
      if (wire.stream_seq === 40) break;
    }
    await more;
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  }, 30_000);
});

/** A client that opens its feeds with a ticket from POST /v1/tickets each time. */
function ticketClient(baseUrl: string, reconnect?: { baseMs: number; maxMs: number }) {
  return new WirestreamClient({
    baseUrl,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    wsAuth: 'ticket',
    ...(reconnect ? { reconnect } : {}),
    ...(token ? { token } : {}),
  });
}

describe('WebSocket authentication', () => {
  it('opens the feed with a short-lived ticket instead of the token when asked to', async () => {
    const streamId = `project:ticket-${Date.now().toString(36)}`;
    await appendMany(streamId, 3);
    const ticketed = ticketClient(server.url);
    const { sub, seen } = await followToCaughtUp(ticketed, streamId, 3);
    sub.close();
    expect(seen).toEqual([1, 2, 3]);
  }, 30_000);

  it('resumes after a dropped connection with a fresh ticket: each ticket opens one socket', async () => {
    const streamId = `project:ticket-drop-${Date.now().toString(36)}`;
    await appendMany(streamId, 3);
    const ticketed = ticketClient(proxy.url, { baseMs: 20, maxMs: 100 });
    const states: string[] = [];
    const { sub, seen } = await followToCaughtUp(ticketed, streamId, 3, {
      onState: (state) => {
        states.push(state);
      },
    });
    proxy.dropAll();
    await appendMany(streamId, 3);
    await until(
      () => seen.length === 6,
      15_000,
      () => `saw ${seen.join(',')}; states ${states.join(' → ')}`,
    );
    sub.close();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(states).toContain('reconnecting');
  }, 30_000);

  it("stops with the server's 401 instead of reconnecting forever when the token is refused", async () => {
    const refused = new WirestreamClient({
      baseUrl: server.url,
      token: 'not-a-token',
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      reconnect: { baseMs: 20, maxMs: 50 },
    });
    const sub = refused.subscribe('project:refused', { onWires: () => {} });
    const error = await sub.closed.catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(sub.state).toBe('closed');
  }, 30_000);
});

describe('append over a connection that loses the answer', () => {
  let lossy: Server;
  let lossyUrl = '';

  beforeAll(async () => {
    // Forwards each POST, then cuts the connection instead of answering the
    // first time: the Wire is stored but the client never hears so.
    const cut = new Set<string>();
    lossy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const up = httpRequest(
          {
            host: '127.0.0.1',
            port: server.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (upRes) => {
            const key = body.toString();
            if (req.method === 'POST' && !cut.has(key)) {
              cut.add(key);
              upRes.resume();
              upRes.on('end', () => req.socket.destroy());
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            upRes.pipe(res);
          },
        );
        up.end(body);
      });
    });
    await new Promise<void>((r) => lossy.listen(0, '127.0.0.1', () => r()));
    const address = lossy.address();
    lossyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(() => new Promise<void>((r) => lossy.close(() => r())));

  it('retries with the same wire_id and gets the stored receipt back, never a second Wire', async () => {
    const streamId = `project:retry-${Date.now().toString(36)}`;
    const retries: string[] = [];
    const writer = new WirestreamClient({
      baseUrl: lossyUrl,
      sender: SENDER,
      retry: { baseMs: 10, maxMs: 50 },
      onRetry: ({ error }) => retries.push(error.code),
      ...(token ? { token } : {}),
    });
    const result = await writer.append(streamId, {
      type: 'review.concern',
      payload: { concern: 'lost answer' },
    });

    expect(retries).toEqual(['network']);
    expect(result.replay).toBe(true);
    expect(result.receipt.stream_seq).toBe(1);
    const page = await client(server.url).read(streamId);
    expect(page.wires.map((w) => w.wire_id)).toEqual([result.wire.wire_id]);
  }, 30_000);
});
