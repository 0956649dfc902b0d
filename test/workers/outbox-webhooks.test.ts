import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { streamStub } from '../../src/stream/stub';
import {
  appendWire,
  delivered,
  hookUrl,
  type Received,
  received,
  receiver,
  register,
  uniqueName,
  until,
  wireIdOf,
} from './helpers/webhooks';
import { uniqueStream } from './helpers/wires';

/**
 * Webhooks through the outbox, against a real receiver on 127.0.0.1 that
 * checks every signature with the `standardwebhooks` package. The tests run
 * with WEBHOOK_RETRY_SCHEDULE=0.2,0.4,0.8,1,1,2 (seven attempts) and a 1.5 s
 * attempt timeout (vitest.config.ts).
 */
/** The first request the receiver got for `wireId` under endpoint `name`. */
async function firstDeliveryOf(name: string, wireId: string): Promise<Received> {
  const got = await until(
    () => received(name),
    (rs) => rs.some((r) => wireIdOf(r) === wireId),
  );
  const first = got.find((r) => wireIdOf(r) === wireId);
  if (!first) throw new Error(`the receiver got nothing for ${wireId} under ${name}`);
  return first;
}

describe('webhooks through the outbox', () => {
  it('delivers every Wire once signed, none lost, with the same webhook-id across retries', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('every');
    const secret = await register(streamId, name);
    // The first attempts fail, one hangs past the timeout: retries must cover them.
    await receiver(name, { script: ['fail', 'hang', 'fail', 'fail'], mode: 'ok' });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await appendWire(streamId));

    const got = await until(
      () => received(name),
      (rs) => new Set(rs.filter(delivered).map(wireIdOf)).size === ids.length,
    );
    expect(new Set(got.filter(delivered).map(wireIdOf))).toEqual(new Set(ids));
    // Every request, retries included, verified with the endpoint's secret.
    expect(got.every((r) => r.verified.length === 1)).toBe(true);
    expect(secret.startsWith('whsec_')).toBe(true);
    // One webhook-id per Wire, the same on each of its attempts.
    const idsOf = new Map<string, Set<string>>();
    for (const r of got) idsOf.set(wireIdOf(r), (idsOf.get(wireIdOf(r)) ?? new Set()).add(r.id));
    expect([...idsOf.values()].every((s) => s.size === 1)).toBe(true);
    expect(new Set([...idsOf.values()].map((s) => [...s][0])).size).toBe(ids.length);
    expect(got.length).toBeGreaterThan(ids.length); // some were retried
    const body = JSON.parse(got.find(delivered)?.body ?? '{}');
    expect(body).toMatchObject({ type: 'review.concern', data: { stream_id: streamId } });

    const stream = streamStub(env, streamId);
    const messages = await stream.webhookMessages(name);
    expect(messages).toHaveLength(ids.length);
    expect(messages.every((m) => m.status === 'delivered')).toBe(true);
    const log = await stream.webhookLog(name);
    expect(log.length).toBe(got.length);
    expect(log.map((a) => a.status)).toEqual(expect.arrayContaining([204, 500, null]));
    const timedOut = log.find((a) => a.status === null);
    expect(timedOut?.error).toMatch(/no answer within 1500 ms/);
    expect(timedOut?.latency_ms).toBeGreaterThanOrEqual(1400);
    expect(log.every((a) => a.at.endsWith('Z') && a.latency_ms >= 0)).toBe(true);
  });

  it('dead-letters after the last retry; a replay sends the same webhook-id in a new series', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('dead');
    await register(streamId, name);
    await receiver(name, { mode: 'fail' });
    const wireId = await appendWire(streamId);
    const stream = streamStub(env, streamId);
    const dead = await until(
      () => stream.webhookMessages(name, 'dead'),
      (ms) => ms.length === 1,
    );
    expect(dead[0]?.last_error).toMatch(/gave up after 7 attempts: HTTP 500/);
    const tries = await received(name);
    expect(tries).toHaveLength(7);
    expect(new Set(tries.map((t) => t.id)).size).toBe(1);
    // Seven attempts, at growing intervals (0.2, 0.4, 0.8, 1, 1, 2 s, ±20 %).
    const gaps = tries.slice(1).map((t, i) => t.at - (tries[i]?.at ?? 0));
    expect(gaps[3] ?? 0).toBeGreaterThan((gaps[0] ?? 0) + 200);

    await receiver(name, { mode: 'ok' });
    // Only under the endpoint it was sent to.
    expect(await stream.replayWebhook('other', dead[0]?.id ?? '')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
    expect(await stream.replayWebhook(name, dead[0]?.id ?? '')).toEqual({ ok: true });
    const after = await until(
      () => received(name),
      (rs) => rs.some(delivered),
    );
    const replayed = after.find(delivered);
    expect(replayed?.id).toBe(tries[0]?.id);
    expect(wireIdOf(replayed as (typeof after)[number])).toBe(wireId);
    const log = await until(
      () => stream.webhookLog(name),
      (l) => l[0]?.status === 204,
    );
    expect(log[0]).toMatchObject({ message_id: dead[0]?.id, attempt: 1, status: 204, error: null });
    expect((await stream.webhookMessages(name))[0]?.status).toBe('delivered');
    // An unknown message is a 404.
    expect(await stream.replayWebhook(name, 'msg_nope')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
  }, 60_000);

  it('stops at a 410: the endpoint is disabled and takes nothing more until enabled', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('gone');
    await register(streamId, name);
    await receiver(name, { mode: 'gone' });
    await appendWire(streamId);
    const stream = streamStub(env, streamId);
    const endpoints = await until(
      () => stream.webhooks(),
      (es) => es[0]?.disabled_at != null,
    );
    expect(endpoints[0]).toMatchObject({
      id: name,
      disabled_reason: 'the receiver answered 410 Gone',
    });
    const [gone] = await stream.webhookMessages(name);
    expect(gone).toMatchObject({ status: 'dead', last_error: 'the receiver answered 410 Gone' });
    expect(await stream.replayWebhook(name, gone?.id ?? '')).toMatchObject({
      ok: false,
      code: 'invalid-transition',
    });
    await appendWire(streamId); // not sent: the endpoint is off
    expect(await stream.webhookMessages(name)).toHaveLength(1);
    expect(await received(name)).toHaveLength(1);

    // Enabled again (the receiver is back), a replay delivers the message it refused.
    await receiver(name, { mode: 'ok' });
    expect(await stream.enableWebhook(name, true)).toBeNull();
    expect(await stream.replayWebhook(name, gone?.id ?? '')).toEqual({ ok: true });
    const got = await until(
      () => received(name),
      (rs) => rs.some(delivered),
    );
    expect(got.map((r) => r.answer)).toEqual(['gone', 'ok']);
    expect(got[1]?.id).toBe(gone?.id);
  });

  it('honours Retry-After on a 429', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('busy');
    await register(streamId, name);
    await receiver(name, { script: ['busy'], retryAfter: '2', mode: 'ok' });
    await appendWire(streamId);
    const got = await until(
      () => received(name),
      (rs) => rs.some(delivered),
    );
    expect(got.map((r) => r.answer)).toEqual(['busy', 'ok']);
    // The schedule alone would have retried after 0.2 s.
    expect((got[1]?.at ?? 0) - (got[0]?.at ?? 0)).toBeGreaterThanOrEqual(1900);
    expect(got[1]?.id).toBe(got[0]?.id);
  });

  it('retries a 429 with a short Retry-After on the schedule, not faster', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('rate-limited');
    await register(streamId, name);
    await receiver(name, { script: ['busy', 'busy', 'busy', 'busy'], retryAfter: '0', mode: 'ok' });
    await appendWire(streamId);
    const got = await until(
      () => received(name),
      (rs) => rs.some(delivered),
      15_000,
    );
    // Four 429s, then delivered: not dead-lettered after a burst of instant retries.
    expect(got.map((r) => r.answer)).toEqual(['busy', 'busy', 'busy', 'busy', 'ok']);
    // WEBHOOK_RETRY_SCHEDULE (vitest.config.ts) waits 0.2 + 0.4 + 0.8 + 1 s before the
    // fifth, each ±20 % jitter: at least 1.92 s (Retry-After alone: ~0.4 s in all).
    expect((got[4]?.at ?? 0) - (got[0]?.at ?? 0)).toBeGreaterThanOrEqual(1800);
  });

  it('signs with the old and the new secret while a rotation is in its grace period', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('rotate');
    const old = await register(streamId, name);
    const stream = streamStub(env, streamId);
    const rotated = await stream.rotateWebhookSecret(name, 3600);
    if (!rotated.ok) throw new Error(rotated.detail);
    expect(rotated.secret).not.toBe(old);
    await receiver(name, { secrets: [old, rotated.secret] });
    // Each Wire is read by its id: under load an attempt can outlast the 1.5 s
    // timeout and be sent again (same webhook-id), so arrival counts prove nothing.
    const first = await appendWire(streamId);
    const during = await firstDeliveryOf(name, first);
    expect(during.signatures).toHaveLength(2);
    expect(during.verified).toEqual([0, 1]); // each secret verifies on its own
    expect((await stream.webhooks())[0]?.secrets).toHaveLength(2);

    // Grace over: a rotation with no grace leaves only the newest secret signing.
    const again = await stream.rotateWebhookSecret(name, 0);
    if (!again.ok) throw new Error(again.detail);
    await receiver(name, { secrets: [old, rotated.secret, again.secret] });
    const second = await appendWire(streamId);
    const after = await firstDeliveryOf(name, second);
    expect(after.signatures).toHaveLength(1);
    expect(after.verified).toEqual([2]);
  });

  it('answers appends as fast while the receiver hangs, and delivers everything once it is back', async () => {
    // Three streams side by side: no endpoint, an endpoint that answers, one that hangs.
    const streams = {
      none: uniqueStream('artifact'),
      answering: uniqueStream('artifact'),
      hanging: uniqueStream('artifact'),
    };
    const ok = uniqueName('answering');
    const hang = uniqueName('hanging');
    await register(streams.answering, ok);
    await register(streams.hanging, hang);
    await receiver(hang, { mode: 'hang' });
    const keys = ['none', 'answering', 'hanging'] as const;
    const timings = { none: [] as number[], answering: [] as number[], hanging: [] as number[] };
    const ids = { none: [] as string[], answering: [] as string[], hanging: [] as string[] };
    // Few enough that the first message is not dead-lettered (7 hanging attempts) before the end.
    for (let i = 0; i < 12; i++) {
      for (let k = 0; k < keys.length; k++) {
        const key = keys[(i + k) % keys.length] as (typeof keys)[number];
        const started = performance.now();
        ids[key].push(await appendWire(streams[key]));
        timings[key].push(performance.now() - started);
      }
    }
    const p50 = (xs: number[]) => ([...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0).toFixed(1);
    console.log(
      `append p50 (12 each, interleaved): no endpoint ${p50(timings.none)} ms, answering receiver ${p50(timings.answering)} ms, hanging receiver ${p50(timings.hanging)} ms`,
    );
    await receiver(hang, { mode: 'ok' });
    for (const [name, key] of [
      [ok, 'answering'],
      [hang, 'hanging'],
    ] as const) {
      const got = await until(
        () => received(name),
        (rs) => new Set(rs.filter(delivered).map(wireIdOf)).size === ids[key].length,
        30_000,
      );
      expect(new Set(got.filter(delivered).map(wireIdOf))).toEqual(new Set(ids[key]));
      expect(got.every((r) => r.verified.length === 1)).toBe(true);
    }
  }, 90_000);
});

describe('registering an endpoint', () => {
  it('refuses URLs that are not https, carry credentials, or are not URLs, naming the field', async () => {
    const stream = streamStub(env, uniqueStream('artifact'));
    for (const url of [
      'http://example.com/hook',
      'https://user:pw@example.com/hook',
      'ftp://example.com',
      'not a url',
    ]) {
      const result = await stream.registerWebhook({ url });
      expect(result).toMatchObject({ ok: false, code: 'invalid-body', errors: [{ path: 'url' }] });
    }
    expect(await stream.registerWebhook({ url: 'https://example.com/h', colour: 1 })).toMatchObject(
      {
        ok: false,
        code: 'invalid-body',
      },
    );
    expect(
      await stream.registerWebhook({ url: 'https://example.com/h', secret: 'whsec_short' }),
    ).toMatchObject({ ok: false, errors: [{ path: 'secret' }] });
    expect(await stream.webhooks()).toEqual([]);
    const ok = await stream.registerWebhook({ id: 'hooks', url: 'https://example.com/h' });
    expect(ok).toMatchObject({ ok: true, endpoint: { id: 'hooks', types: [] } });
    expect(await stream.registerWebhook({ id: 'hooks', url: hookUrl('x') })).toMatchObject({
      ok: false,
      code: 'invalid-transition',
    });
  });
});
