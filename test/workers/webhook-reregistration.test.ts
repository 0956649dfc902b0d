import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sqlOf } from '../../src/kernel/sql';
import { streamStub } from '../../src/stream/stub';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { emit, type Json, SEED_EVENTS } from './helpers/gsd';
import {
  hookUrl,
  type Received,
  received,
  receiver,
  register,
  uniqueName,
  until,
  wireIdOf,
} from './helpers/webhooks';
import { post, uniqueStream, wire11 } from './helpers/wires';

/**
 * An endpoint removed and registered again under the same id (the only way to
 * point an id at another URL) is a new endpoint: what was sent for the old one
 * is neither delivered to it, nor listed, logged or replayable under it.
 * Against the real receiver (test/support/webhook-receiver.ts), which checks
 * every signature; WEBHOOK_RETRY_SCHEDULE=0.2,0.4,… and a 1.5 s attempt
 * timeout (vitest.config.ts). A 429 with `Retry-After: 2` holds a message in
 * its retry for 2 s, long after the endpoint is removed.
 */
const delivered = (r: { answer: string }) => r.answer === 'ok';

async function append(streamId: string): Promise<string> {
  const body = wire11(streamId, { correlation_id: null });
  const res = await post(streamId, body);
  expect(res.status).toBe(201);
  return body.wire_id;
}

/** Waits up to `ms` for a request that must never come; answers what came. */
async function watch(name: string, unwanted: (r: Received) => boolean, ms = 4000) {
  const got = await until(
    () => received(name),
    (rs) => rs.some(unwanted),
    ms,
  );
  return got.filter(unwanted);
}

/** Rows the stream's outbox still holds for webhooks. */
async function queuedWebhooks(streamId: string): Promise<number> {
  const stub = env.STREAMS.get(env.STREAMS.idFromName(streamId));
  return runInDurableObject(stub, (_object, state) => {
    const sql = sqlOf(state.storage.sql);
    return sql<{ n: number }>`SELECT COUNT(*) AS n FROM outbox WHERE via = 'http'`[0]?.n ?? -1;
  });
}

describe('an endpoint removed and registered again', () => {
  it('gets none of the old messages: not delivered, listed, logged or replayable', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('reused');
    const moved = uniqueName('reused-new');
    await register(streamId, name);
    await receiver(name, { mode: 'busy', retryAfter: '2' });
    await append(streamId);
    await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    const [old] = await stream.webhookMessages(name);
    expect(old).toMatchObject({ status: 'pending', last_error: 'HTTP 429' });

    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    const again = await stream.registerWebhook({ id: name, url: hookUrl(moved), types: ['*'] });
    if (!again.ok) throw new Error(again.detail);
    await receiver(moved, { secrets: [again.secret] });
    expect(await stream.webhookMessages(name)).toEqual([]);
    expect(await stream.webhookLog(name)).toEqual([]);
    expect(await stream.replayWebhook(name, old?.id ?? '')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
    // The old message's retry was due 2 s after its first attempt: it goes nowhere.
    expect(await watch(moved, (r) => r.id === old?.id)).toEqual([]);
    expect(await received(name)).toHaveLength(1);

    // The new endpoint gets its own Wires, signed with its own secret, from attempt 1.
    const fresh = await append(streamId);
    const got = await until(
      () => received(moved),
      (rs) => rs.some(delivered),
    );
    expect(got.map(wireIdOf)).toEqual([fresh]);
    expect(got[0]?.verified).toEqual([0]);
    const log = await until(
      () => stream.webhookLog(name),
      (l) => l.length > 0,
    );
    expect(log).toMatchObject([{ attempt: 1, status: 204, error: null }]);
    expect((await stream.webhookMessages(name)).map((m) => m.status)).toEqual(['delivered']);
  });

  it('does not inherit an attempt that was under way: it is neither logged nor retried there', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('midway');
    const moved = uniqueName('midway-new');
    await register(streamId, name);
    await receiver(name, { mode: 'hang' });
    await append(streamId);
    await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    const again = await stream.registerWebhook({ id: name, url: hookUrl(moved) });
    if (!again.ok) throw new Error(again.detail);
    await receiver(moved, { secrets: [again.secret] });

    // The hanging attempt times out 1.5 s in; a retry would follow 0.2 s later.
    expect(await watch(moved, () => true)).toEqual([]);
    expect(await stream.webhookLog(name)).toEqual([]);
    expect(await stream.webhookMessages(name)).toEqual([]);
    expect(await stream.webhooks()).toMatchObject([
      { id: name, url: hookUrl(moved), disabled_at: null },
    ]);
    expect(await queuedWebhooks(streamId)).toBe(0);
  });
});

describe('removing an endpoint', () => {
  it('dead-letters what it still owed at once and sends it nowhere; its history stays readable', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('removed');
    await register(streamId, name);
    await receiver(name, { mode: 'busy', retryAfter: '2' });
    await append(streamId);
    await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });

    const [message] = await stream.webhookMessages(name, 'dead');
    expect(message).toMatchObject({ last_error: 'the endpoint was removed' });
    expect(await stream.webhookLog(name)).toMatchObject([{ attempt: 1, status: 429 }]);
    expect(await queuedWebhooks(streamId)).toBe(0);
    // Its retry was due 2 s after the first attempt.
    const later = await until(
      () => received(name),
      (rs) => rs.length > 1,
      4000,
    );
    expect(later).toHaveLength(1);
    expect(await stream.replayWebhook(name, message?.id ?? '')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
  });

  it('during an attempt leaves the message dead-lettered, the attempt logged, and no retry', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('removed-midway');
    await register(streamId, name);
    await receiver(name, { mode: 'hang' });
    await append(streamId);
    await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    expect(await stream.webhookMessages(name)).toMatchObject([
      { status: 'dead', last_error: 'the endpoint was removed' },
    ]);

    const log = await until(
      () => stream.webhookLog(name),
      (l) => l.length > 0,
    );
    expect(log).toMatchObject([{ attempt: 1, status: null }]);
    // A retry would follow 0.2 s after the timeout.
    const later = await until(
      () => received(name),
      (rs) => rs.length > 1,
      1500,
    );
    expect(later).toHaveLength(1);
    expect(await stream.webhookMessages(name)).toMatchObject([
      { status: 'dead', last_error: 'the endpoint was removed' },
    ]);
    expect(await queuedWebhooks(streamId)).toBe(0);
  });
});

describe('a retry after the secret was rotated', () => {
  it('is signed with the secrets live when it is sent, so a receiver on the new secret verifies it', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('rotated-retry');
    await register(streamId, name);
    await receiver(name, { script: ['busy'], retryAfter: '1', mode: 'ok' });
    await append(streamId);
    const [first] = await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    // No grace: the receiver moves to the new secret at once and knows only it.
    const rotated = await stream.rotateWebhookSecret(name, 0);
    if (!rotated.ok) throw new Error(rotated.detail);
    await receiver(name, { secrets: [rotated.secret] });
    const got = await until(
      () => received(name),
      (rs) => rs.some(delivered),
    );
    const retry = got.find(delivered);
    expect(retry?.id).toBe(first?.id);
    expect(retry?.signatures).toHaveLength(1);
    expect(retry?.verified).toEqual([0]);
  });
});

describe("a GSD project's custom: endpoint registered again", () => {
  it('lists no deliveries of the removed one and replays none of them', async () => {
    const project = uid('rereg');
    const name = uniqueName('notify');
    const moved = uniqueName('notify-new');
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await SELF.fetch(`https://ws.test/v1/projects/${project}${path}`, {
        method,
        headers: {
          ...(await coordinatorHeaders('coordinator:orch')),
          'Content-Type': 'application/json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const created = await api('POST', '/webhooks', { id: name, url: hookUrl(name) });
    expect(created.status).toBe(201);
    await receiver(name, { secrets: [String(created.body.secret)], mode: 'busy', retryAfter: '2' });
    const config = { event_handlers: { 'task:completed': [`custom:${name}`] } };
    expect((await api('PUT', '/config', config)).status).toBe(200);
    await emit(project, { ...SEED_EVENTS.taskCompleted, task: 1 });
    const [old] = await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );

    expect(await streamStub(env, `gsd:${project}`).removeWebhook(name)).toEqual({ ok: true });
    const again = await api('POST', '/webhooks', { id: name, url: hookUrl(moved) });
    expect(again.status).toBe(201);
    await receiver(moved, { secrets: [String(again.body.secret)] });
    const deliveries = await api('GET', `/webhooks/${name}/deliveries`);
    expect(deliveries.body).toMatchObject({ messages: [], attempts: [] });
    const replay = await api('POST', `/webhooks/${name}/messages/${old?.id}/replay`);
    expect(replay.status).toBe(404);
    expect(await watch(moved, () => true)).toEqual([]);

    await emit(project, { ...SEED_EVENTS.taskCompleted, task: 2 });
    const got = await until(
      () => received(moved),
      (rs) => rs.some(delivered),
    );
    expect(got).toHaveLength(1);
    expect(got[0]?.verified).toEqual([0]);
    expect(JSON.parse(String(got[0]?.body))).toMatchObject({ task: 2, type: 'task:completed' });
  });
});
