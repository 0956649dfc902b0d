import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { expectNothingStored, expectProblem, lastSeq } from './helpers/attack';
import { authHeaders } from './helpers/auth';
import { post, uniqueStream, wire11 } from './helpers/wires';

const base = 'https://ws.test';

describe('size and shape limits', () => {
  it('refuses an oversized body with 413 and stores nothing', async () => {
    const s = uniqueStream();
    const res = await post(
      s,
      wire11(s, { type: 'agent.note', payload: { text: 'x'.repeat(9000) } }),
    );
    const problem = await expectProblem(res, 413, 'envelope-too-large');
    expect(problem.limit_bytes).toBe(8192);
    await expectNothingStored(s);
  });

  it('refuses JSON nested deeper than 32 levels with 400 naming the path', async () => {
    const s = uniqueStream();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const res = await post(s, wire11(s, { type: 'agent.note', payload: { deep } }));
    const problem = await expectProblem(res, 400, 'json-too-deep');
    expect(problem.errors?.[0]?.path).toMatch(/^payload\.deep(\.d)+$/);
    expect(problem.max_depth).toBe(32);
    await expectNothingStored(s);
  });
});

describe('per-sender rate limit', () => {
  // A Worker with a tight bucket; the Durable Objects are the real ones.
  const app = createApp();
  const tight = { ...env, RATE_PER_SECOND: '0.2', RATE_BURST: '5' };

  /** One append from `sender` to stream `s` through the app under `vars`. */
  const append = async (s: string, sender: string, vars: typeof env) =>
    app.request(
      `${base}/v1/streams/${s}/wires`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(await authHeaders(sender)) },
        body: JSON.stringify(wire11(s, { sender })),
      },
      vars,
    );

  /** `n` appends from `sender` to `s`, one after another: their statuses, and the first 429. */
  async function flood(s: string, sender: string, n: number, vars: typeof env) {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < n; i++) {
      const res = await append(s, sender, vars);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.body?.cancel();
    }
    return { statuses, refused };
  }

  it('answers a flood with 429 and Retry-After, keeping only what fit the bucket', async () => {
    const s = uniqueStream();
    const sender = `agent:flood-${Date.now().toString(36)}`;
    const { statuses, refused } = await flood(s, sender, 8, tight);
    expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    if (!refused) throw new Error('no 429');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const problem = await expectProblem(refused, 429, 'rate-limited');
    expect(problem.detail).toContain(sender);
    expect(await lastSeq(s)).toBe(5);
  });

  it('decides a concurrent flood take by take: exactly the burst is stored, the rest get 429', async () => {
    // Through fetch with an ExecutionContext, as deployed, all at once: the
    // sender's object decides each take against the one bucket.
    const s = uniqueStream();
    const sender = `agent:burst-${Date.now().toString(36)}`;
    const headers = { 'Content-Type': 'application/json', ...(await authHeaders(sender)) };
    const send = async () => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${base}/v1/streams/${s}/wires`, {
          method: 'POST',
          headers,
          body: JSON.stringify(wire11(s, { sender })),
        }),
        tight,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    const responses = await Promise.all(Array.from({ length: 12 }, send));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(429)]);
    for (const res of responses) {
      if (res.status === 429)
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await res.body?.cancel();
    }
    expect(await lastSeq(s)).toBe(5);
  });

  it('admits exactly the burst when a busy sender is served from leased tokens', async () => {
    // A burst of 40 lets this isolate lease up to 5 tokens at a time (one
    // RateLimiter call per lease, not per append); the sender still gets
    // exactly the 40 the bucket holds, then 429.
    const s = uniqueStream();
    const sender = `agent:lease-${Date.now().toString(36)}`;
    const roomy = { ...env, RATE_PER_SECOND: '0.01', RATE_BURST: '40' };
    const { statuses } = await flood(s, sender, 46, roomy);
    expect(statuses.slice(0, 40)).toEqual(Array(40).fill(201));
    expect(statuses.slice(40)).toEqual(Array(6).fill(429));
    expect(await lastSeq(s)).toBe(40);
  });

  it('limits each sender on its own', async () => {
    const s = uniqueStream();
    const sender = `agent:calm-${Date.now().toString(36)}`;
    const res = await append(s, sender, tight);
    expect(res.status).toBe(201);
  });
});

describe('subscribers per stream', () => {
  it('answers the upgrade past the cap with a 429 problem instead of a socket', async () => {
    const app = createApp();
    const capped = { ...env, WS_MAX_SUBSCRIBERS: '2' };
    const s = uniqueStream();
    const headers = { Upgrade: 'websocket', ...(await authHeaders()) };
    const open = () => app.request(`${base}/v1/streams/${s}/ws`, { headers }, capped);
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await open();
      expect(res.status).toBe(101);
      if (res.webSocket) {
        res.webSocket.accept();
        sockets.push(res.webSocket);
      }
    }
    const problem = await expectProblem(await open(), 429, 'too-many-subscribers');
    expect(problem.max_subscribers).toBe(2);
    for (const ws of sockets) ws.close(1000, 'done');
  });
});

describe('browser-facing hygiene', () => {
  it('allows configured origins only', async () => {
    const preflight = (origin: string) =>
      SELF.fetch(`${base}/v1/streams/project:x/wires`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
    const allowed = await preflight('http://localhost:8787');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:8787');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    );
    const foreign = await preflight('https://evil.example');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a page on an allowed origin read the freshness headers of a read', async () => {
    const res = await SELF.fetch(`${base}/v1/streams`, {
      headers: {
        ...(await authHeaders('human:reader', ['read'])),
        Origin: 'http://localhost:8787',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('Wirestream-Watermark')).not.toBeNull();
    const exposed = res.headers.get('access-control-expose-headers')?.toLowerCase().split(',');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'wirestream-watermark',
        'wirestream-watermark-received-at',
        'wirestream-wait-for',
        'wirestream-stale-models',
      ]),
    );
  });

  it('sends security headers, also on errors', async () => {
    const res = await SELF.fetch(`${base}/v1/streams/project:x/wires`);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toContain('max-age');
  });

  it("sends hono's default secure headers, with its values, on a stored Wire", async () => {
    const reference = new Hono();
    reference.use(secureHeaders());
    reference.get('/', (c) => c.text('ok'));
    const expected = [...(await reference.request('/')).headers]
      .filter(([name]) => name !== 'content-type')
      .sort();
    const s = uniqueStream();
    const res = await post(s, wire11(s));
    expect(res.status).toBe(201);
    const got = new Map(res.headers);
    for (const [name, value] of expected) expect([name, got.get(name)]).toEqual([name, value]);
    expect(expected.length).toBeGreaterThanOrEqual(11);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('never shows stack traces or internal ids in problems', async () => {
    const res = await post('project:x', '{"wire": "1.1", ');
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });
});
