import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, ResumeCursor, WirestreamClient } from '../../src/client';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

describe('retry and resume rules', () => {
  it('drops repeats and stops at the first gap so nothing is skipped', () => {
    const cursor = new ResumeCursor(3);
    const seq = (n: number) => n;
    expect(cursor.accept([2, 3, 4, 5], seq)).toEqual({ fresh: [4, 5], duplicates: 2, gap: null });
    expect(cursor.accept([6, 8, 9], seq)).toEqual({
      fresh: [6],
      duplicates: 0,
      gap: { expected: 7, got: 8 },
    });
    expect(cursor.last).toBe(6);
  });

  it('backs off exponentially with jitter, capped, and lets Retry-After win', () => {
    const policy = { attempts: 6, baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, policy, undefined, () => 0)).toBe(50);
    expect(backoffDelay(3, policy, undefined, () => 1)).toBe(800);
    expect(backoffDelay(9, policy, undefined, () => 1)).toBe(1000);
    expect(backoffDelay(2, policy, 3000)).toBe(3000);
    expect(parseRetryAfter('2')).toBe(2000);
    expect(
      parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:58Z')),
    ).toBe(2000);
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('append against a rate-limited server', () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startDevServer({ RATE_PER_SECOND: '2', RATE_BURST: '2' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('waits out 429 Retry-After and stores every Wire exactly once', async () => {
    const sender = 'agent:retry-test';
    const token = await tokenFor(server, sender);
    const retries: { code: string; delayMs: number }[] = [];
    const client = new WirestreamClient({
      baseUrl: server.url,
      sender,
      ...(token ? { token } : {}),
      onRetry: ({ error, delayMs }) => retries.push({ code: error.code, delayMs }),
    });
    const stream = `project:retry-${Date.now().toString(36)}`;
    for (let i = 0; i < 5; i++) {
      await client.append(stream, { type: 'review.concern', payload: { concern: `r${i}` } });
    }
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((r) => r.code === 'rate-limited' && r.delayMs >= 1000)).toBe(true);
    const page = await client.read(stream);
    expect(page.wires.map((w) => w.payload.concern)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  }, 60_000);
});
