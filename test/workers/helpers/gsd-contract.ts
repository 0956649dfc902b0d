import { expect } from 'vitest';
import { authHeaders, coordinatorHeaders } from './auth';
import { call } from './contract';
import { uid } from './coordination';
import { SEED_EVENTS } from './gsd';
import { hookUrl } from './webhooks';

const json = (body: unknown, headers: Record<string, string>): RequestInit => ({
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** Calls each route of the gsd module (seed 004) once well and once badly, through the document. */
export async function exerciseGsdRoutes(): Promise<void> {
  const project = uid('gsdc');
  const base = `/v1/projects/${project}`;
  const P = '/v1/projects/{project_id}';
  const executor = await authHeaders('agent:gsd-executor', ['append', 'read']);
  const coordinator = await coordinatorHeaders('coordinator:gsd');
  const posted = await call(
    'post',
    `${P}/events`,
    `${base}/events`,
    json(SEED_EVENTS.taskStarted, executor),
  );
  expect(posted.status).toBe(201);
  const key = { ...executor, 'Idempotency-Key': uid('k') };
  expect(
    (await call('post', `${P}/events`, `${base}/events`, json([SEED_EVENTS.taskCompleted], key)))
      .status,
  ).toBe(201);
  expect(
    (await call('post', `${P}/events`, `${base}/events`, json([SEED_EVENTS.taskCompleted], key)))
      .status,
  ).toBe(200);
  expect(
    (await call('post', `${P}/events`, `${base}/events`, json({ type: 'nope' }, executor))).status,
  ).toBe(422);
  expect(
    (
      await call('get', `${P}/events`, `${base}/events?type=task:completed&wait=1`, {
        headers: executor,
      })
    ).status,
  ).toBe(200);
  expect(
    (await call('get', `${P}/events`, `${base}/events?wait=x`, { headers: executor })).status,
  ).toBe(400);
  const ws = await call('get', `${P}/events/ws`, `${base}/events/ws`, {
    headers: { ...executor, Upgrade: 'websocket' },
  });
  expect(ws.status).toBe(101);
  ws.res.webSocket?.accept();
  ws.res.webSocket?.close(1000, 'done');
  expect(
    (await call('get', `${P}/events/ws`, `${base}/events/ws`, { headers: executor })).status,
  ).toBe(400);
  expect((await call('get', P, base, { headers: executor })).status).toBe(200);
  expect((await call('get', P, '/v1/projects/-bad', { headers: executor })).status).toBe(400);
  expect(
    (await call('get', `${P}/decisions`, `${base}/decisions`, { headers: executor })).status,
  ).toBe(200);
  expect((await call('get', `${P}/decisions`, `${base}/decisions`, {})).status).toBe(401);
  const config = { event_handlers: { 'task:completed': ['builtin:blackboard-sync'] } };
  expect(
    (await call('put', `${P}/config`, `${base}/config`, json(config, coordinator))).status,
  ).toBe(200);
  expect((await call('put', `${P}/config`, `${base}/config`, json(config, executor))).status).toBe(
    403,
  );

  const W = `${P}/webhooks`;
  const hooks = `${base}/webhooks`;
  const endpoint = { id: 'notify', url: hookUrl(uid('gsdc')) };
  expect((await call('post', W, hooks, json(endpoint, coordinator))).status).toBe(201);
  expect((await call('post', W, hooks, json(endpoint, executor))).status).toBe(403);
  expect((await call('get', W, hooks, { headers: executor })).status).toBe(200);
  expect((await call('get', W, '/v1/projects/-bad/webhooks', { headers: executor })).status).toBe(
    400,
  );
  const D = `${W}/{endpoint_id}/deliveries`;
  expect(
    (await call('get', D, `${hooks}/notify/deliveries?status=dead`, { headers: executor })).status,
  ).toBe(200);
  expect((await call('get', D, `${hooks}/nope/deliveries`, { headers: executor })).status).toBe(
    404,
  );
  const R = `${W}/{endpoint_id}/rotate`;
  expect(
    (await call('post', R, `${hooks}/notify/rotate`, json({ grace_seconds: 60 }, coordinator)))
      .status,
  ).toBe(200);
  expect((await call('post', R, `${hooks}/nope/rotate`, json({}, coordinator))).status).toBe(404);
  const handlers = { event_handlers: { 'task:completed': ['custom:notify'] } };
  expect(
    (await call('put', `${P}/config`, `${base}/config`, json(handlers, coordinator))).status,
  ).toBe(200);
  await call('post', `${P}/events`, `${base}/events`, json(SEED_EVENTS.taskCompleted, executor));
  const log = await call('get', D, `${hooks}/notify/deliveries`, { headers: executor });
  const [message] = (log.body as { messages: { id: string }[] }).messages;
  const M = `${W}/{endpoint_id}/messages/{message_id}/replay`;
  let replayed = await call(
    'post',
    M,
    `${hooks}/notify/messages/${message?.id}/replay`,
    json({}, coordinator),
  );
  for (let i = 0; i < 20 && replayed.status === 409; i++) {
    // Still in its first series of attempts: replay waits until that one settles.
    await new Promise((r) => setTimeout(r, 250));
    replayed = await call(
      'post',
      M,
      `${hooks}/notify/messages/${message?.id}/replay`,
      json({}, coordinator),
    );
  }
  expect(replayed.status).toBe(202);
  expect(
    (await call('post', M, `${hooks}/notify/messages/nope/replay`, json({}, coordinator))).status,
  ).toBe(404);
}
