import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { streamStub } from '../../src/stream/stub';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { as, emit, type Json, SEED_EVENTS } from './helpers/gsd';
import { hookUrl, received, receiver, uniqueName, until, watchFor } from './helpers/webhooks';

/**
 * `custom:` handlers against a real receiver (test/support/webhook-receiver.ts)
 * that verifies every delivery with the `standardwebhooks` package and fails,
 * hangs or recovers on command.
 */

async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await SELF.fetch(`https://ws.test${path}`, {
    method,
    headers: {
      ...(await coordinatorHeaders('coordinator:orch')),
      'Content-Type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A project whose task:completed runs `custom:<name>`, registered at the receiver. */
async function projectWithHook(): Promise<{ project: string; name: string; secret: string }> {
  const project = uid('wh');
  const name = uniqueName('notify');
  const created = await api('POST', `/v1/projects/${project}/webhooks`, {
    id: name,
    url: hookUrl(name),
  });
  expect(created.status).toBe(201);
  const secret = String(created.body.secret);
  await receiver(name, { secrets: [secret] });
  const config = {
    event_handlers: { 'task:completed': ['builtin:blackboard-sync', `custom:${name}`] },
  };
  expect((await api('PUT', `/v1/projects/${project}/config`, config)).status).toBe(200);
  return { project, name, secret };
}

const completed = (task: number) => ({ ...SEED_EVENTS.taskCompleted, task });

describe('custom handlers as Standard Webhooks', () => {
  it('delivers every matching event once, signed, in the seed shape', async () => {
    const { project, name } = await projectWithHook();
    await emit(project, [SEED_EVENTS.taskStarted, completed(1), completed(2)]);
    await emit(project, completed(3));
    const got = await until(
      () => received(name),
      (r) => r.length >= 3,
    );
    expect(got).toHaveLength(3);
    expect(got.every((d) => d.verified.includes(0))).toBe(true);
    expect(new Set(got.map((d) => d.id)).size).toBe(3);
    const bodies = got
      .map((d) => JSON.parse(d.body) as Json)
      .sort((a, b) => Number(a.id) - Number(b.id));
    expect(bodies).toEqual([
      { ...completed(1), id: 3 },
      { ...completed(2), id: 4 },
      { ...completed(3), id: 5 },
    ]);
  });

  it('retries with the same webhook-id, dead-letters after the last try, and replays', async () => {
    const { project, name } = await projectWithHook();
    await receiver(name, { script: ['fail', 'fail'], mode: 'ok' });
    await emit(project, completed(1));
    const recovered = await until(
      () => received(name),
      (r) => r.some((d) => d.answer === 'ok'),
    );
    expect(recovered.map((d) => d.answer)).toEqual(['fail', 'fail', 'ok']);
    expect(new Set(recovered.map((d) => d.id)).size).toBe(1);

    await receiver(name, { mode: 'fail', script: [] });
    await emit(project, completed(2));
    const deliveries = `/v1/projects/${project}/webhooks/${name}/deliveries`;
    const dead = await until(
      () => api('GET', `${deliveries}?status=dead`),
      (r) => (r.body.messages as Json[]).length > 0,
      30_000,
    );
    const [message] = dead.body.messages as Json[];
    expect(message).toMatchObject({ status: 'dead', event_type: 'task:completed' });
    const log = await api('GET', deliveries);
    expect((log.body.attempts as Json[]).length).toBeGreaterThanOrEqual(3 + 5);

    await receiver(name, { mode: 'ok' });
    const before = (await received(name)).length;
    const elsewhere = `/v1/projects/${project}/webhooks/other-endpoint/messages/${message?.id}`;
    expect((await api('POST', `${elsewhere}/replay`)).status).toBe(404);
    const replay = await api(
      'POST',
      `/v1/projects/${project}/webhooks/${name}/messages/${message?.id}/replay`,
    );
    expect(replay.status).toBe(202);
    const after = await until(
      () => received(name),
      (r) => r.length > before && r.at(-1)?.answer === 'ok',
    );
    const last = after.at(-1);
    expect(last?.verified).toEqual([0]);
    expect(JSON.parse(String(last?.body))).toMatchObject({ task: 2, type: 'task:completed' });
    expect(after.filter((d) => d.id === last?.id).length).toBeGreaterThan(1);
  }, 60_000);

  it('signs with old and new secrets during a rotation grace period', async () => {
    const { project, name, secret } = await projectWithHook();
    const rotated = await api('POST', `/v1/projects/${project}/webhooks/${name}/rotate`, {
      grace_seconds: 600,
    });
    expect(rotated.status).toBe(200);
    await receiver(name, { secrets: [secret, String(rotated.body.secret)] });
    await emit(project, completed(1));
    const [delivery] = await until(
      () => received(name),
      (r) => r.length >= 1,
    );
    expect(delivery?.verified).toEqual([0, 1]);
  });

  it('refuses endpoint URLs with credentials or plain http elsewhere, and agents', async () => {
    const project = uid('wh');
    const creds = await api('POST', `/v1/projects/${project}/webhooks`, {
      id: 'x',
      url: 'https://u:p@example.com/h',
    });
    expect(creds.status).toBe(422);
    expect(String(creds.body.detail)).toContain('url');
    const plain = await api('POST', `/v1/projects/${project}/webhooks`, {
      id: 'x',
      url: 'http://example.com/h',
    });
    expect(plain.status).toBe(422);
    const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/webhooks`, {
      method: 'POST',
      headers: { ...(await as('agent:gsd-executor')), 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'x', url: 'https://example.com/h' }),
    });
    expect(res.status).toBe(403);
  });

  it('registers an endpoint only under an id a custom: handler can name', async () => {
    const project = uid('wh-id');
    const p = `/v1/projects/${project}`;
    for (const body of [
      { url: 'https://example.com/h' },
      { id: 'Slack-Notify', url: 'https://example.com/h' },
      { id: 'slack notify', url: 'https://example.com/h' },
    ]) {
      const refused = await api('POST', `${p}/webhooks`, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(String(refused.body.detail)).toMatch(/^id: /);
    }
    expect((await api('GET', `${p}/webhooks`)).body.endpoints).toEqual([]);
    const created = await api('POST', `${p}/webhooks`, {
      id: 'slack-notify',
      url: 'https://example.com/h',
    });
    expect(created.status).toBe(201);
    const config = await api('PUT', `${p}/config`, {
      event_handlers: { 'task:completed': [`custom:${(created.body.endpoint as Json).id}`] },
    });
    expect(config.status, JSON.stringify(config.body)).toBe(200);
  });

  it('answers odd bodies on the webhook and config routes without a 5xx', async () => {
    const project = uid('wh-odd');
    const p = `/v1/projects/${project}`;
    const answers = [
      await api('POST', `${p}/webhooks`, []),
      await api('POST', `${p}/webhooks`, { id: 'x', url: 'https://example.com/h', types: null }),
      await api('POST', `${p}/webhooks`, { id: 'x', url: 7 }),
      await api('POST', `${p}/webhooks/nope/rotate`, {}),
      await api('POST', `${p}/webhooks/nope/rotate`, null),
      await api('POST', `${p}/webhooks/nope/rotate`, []),
      await api('GET', `${p}/webhooks/nope/deliveries?status=bogus`),
      await api('POST', `${p}/webhooks/nope/messages/msg_x/replay`),
      await api('PUT', `${p}/config`, []),
      await api('PUT', `${p}/config`, { event_handlers: { 'task:completed': 'custom:x' } }),
      await api('PUT', `${p}/config`, { event_handlers: null }),
      await api('PUT', `${p}/config`, { retentionPolicy: 24 }),
      await api('PUT', `${p}/config`, { $envelope: { type: 'x' } }),
    ];
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
  });

  it('keeps intake latency while the receiver hangs', async () => {
    const { project, name } = await projectWithHook();
    const timeEmits = async (n: number, offset: number) => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const start = performance.now();
        const answer = await emit(project, completed(offset + i));
        times.push(performance.now() - start);
        expect(answer.status).toBe(201);
      }
      times.sort((a, b) => a - b);
      return { median: times[Math.floor(n / 2)] ?? 0, p90: times[Math.floor(n * 0.9)] ?? 0 };
    };
    const healthy = await timeEmits(15, 100);
    await receiver(name, { mode: 'hang' });
    const hanging = await timeEmits(15, 200);
    console.log(
      `gsd intake latency (ms): receiver ok median ${healthy.median.toFixed(1)} p90 ${healthy.p90.toFixed(1)}; receiver hanging median ${hanging.median.toFixed(1)} p90 ${hanging.p90.toFixed(1)}`,
    );
    expect(hanging.median).toBeLessThan(healthy.median * 3 + 50);
    // Nothing lost: once the receiver answers again, every event arrives.
    await receiver(name, { mode: 'ok' });
    const all = await until(
      () => received(name),
      (r) => new Set(r.filter((d) => d.answer === 'ok').map((d) => d.id)).size >= 30,
      40_000,
    );
    expect(new Set(all.filter((d) => d.answer === 'ok').map((d) => d.id)).size).toBe(30);
  }, 60_000);

  it("lists and replays none of a removed endpoint's deliveries under one registered again", async () => {
    const { project, name } = await projectWithHook();
    // A 429 with Retry-After: 2 keeps the message waiting for its retry.
    await receiver(name, { mode: 'busy', retryAfter: '2' });
    await emit(project, completed(1));
    const [old] = await until(
      () => received(name),
      (r) => r.length >= 1,
    );
    // No route removes an endpoint: a module would, through the stream's stub.
    expect(await streamStub(env, `gsd:${project}`).removeWebhook(name)).toEqual({ ok: true });
    const moved = uniqueName('notify-new');
    const again = await api('POST', `/v1/projects/${project}/webhooks`, {
      id: name,
      url: hookUrl(moved),
    });
    expect(again.status).toBe(201);
    await receiver(moved, { secrets: [String(again.body.secret)] });
    const hooks = `/v1/projects/${project}/webhooks/${name}`;
    expect((await api('GET', `${hooks}/deliveries`)).body).toMatchObject({
      messages: [],
      attempts: [],
    });
    expect((await api('POST', `${hooks}/messages/${old?.id}/replay`)).status).toBe(404);
    expect(await watchFor(moved, () => true)).toEqual([]);

    await emit(project, completed(2));
    const got = await until(
      () => received(moved),
      (r) => r.some((d) => d.answer === 'ok'),
    );
    expect(got).toHaveLength(1);
    expect(got[0]?.verified).toEqual([0]);
    expect(JSON.parse(String(got[0]?.body))).toMatchObject({ task: 2, type: 'task:completed' });
  });

  it('keeps nothing for a handler whose endpoint is not registered, counts it, and sends what comes once it is', async () => {
    const project = uid('wh-unrouted');
    const name = uniqueName('later');
    const config = { event_handlers: { 'task:completed': [`custom:${name}`] } };
    expect((await api('PUT', `/v1/projects/${project}/config`, config)).status).toBe(200);
    await emit(project, [completed(1), completed(2)]);
    await emit(project, completed(3));

    const listed = await api('GET', `/v1/projects/${project}/webhooks`);
    expect(listed.status).toBe(200);
    expect(listed.body.endpoints).toEqual([]);
    expect(listed.body.unrouted).toEqual([
      {
        endpoint_id: name,
        skipped: 3,
        first_at: expect.any(String),
        last_at: expect.any(String),
        last_event_type: 'task:completed',
      },
    ]);
    // No message is kept under the id: nothing piles up for an endpoint that may never come.
    const stream = streamStub(env, `gsd:${project}`);
    expect(await stream.webhookMessages(name)).toEqual([]);

    const created = await api('POST', `/v1/projects/${project}/webhooks`, {
      id: name,
      url: hookUrl(name),
    });
    expect(created.status).toBe(201);
    await receiver(name, { secrets: [String(created.body.secret)] });
    expect((await api('GET', `/v1/projects/${project}/webhooks`)).body.unrouted).toEqual([]);
    await emit(project, completed(4));
    const got = await until(
      () => received(name),
      (r) => r.length >= 1,
    );
    expect(got.map((d) => (JSON.parse(d.body) as Json).task)).toEqual([4]);
  });
});
