import { Hono } from 'hono';
import type { AppEnv } from '../../../api/app-env';
import { requireStream } from '../../../api/auth/require';
import { problem } from '../../../api/problem';
import { fail } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { appendEnvelope, pathId, readEnvelope } from './append-envelope';

/**
 * FR-5's worker side: `POST /v1/workers` spawns one from a WorkerTaskSpec
 * (the envelope's payload); the worker process reports with
 * `POST /v1/workers/{id}/events` and follows its own feed
 * (`/v1/streams/worker:{id}/ws`), where routed channel messages arrive.
 */
export const workers = new Hono<AppEnv>();

workers.post('/workers', async (c) => {
  const env = await readEnvelope(c, { messageTypes: ['worker.spawned'], required: ['workerId'] });
  if (!env.ok) return problem(c, env);
  const id = pathId(
    'workerId',
    typeof env.body.workerId === 'string' ? env.body.workerId : undefined,
  );
  if (!id.ok)
    return problem(
      c,
      fail('invalid-wire', `workerId: ${id.detail}`, {
        errors: [{ path: 'workerId', message: id.detail }],
      }),
    );
  const denied = requireStream(c, `worker:${id.id}`);
  if (denied) return denied;
  return appendEnvelope(c, `worker:${id.id}`, env.body);
});

workers.use('/workers/:worker_id/*', async (c, next) => {
  const id = pathId('worker id', c.req.param('worker_id'));
  if (!id.ok) return problem(c, id);
  const denied = requireStream(c, `worker:${id.id}`);
  if (denied) return denied;
  await next();
});

workers.post('/workers/:worker_id/events', async (c) => {
  const id = c.req.param('worker_id');
  const env = await readEnvelope(c, {
    messageTypes: ['worker.progress', 'worker.completed', 'worker.failed'],
    equal: { workerId: id },
    required: ['channelId'],
  });
  if (!env.ok) return problem(c, env);
  return appendEnvelope(c, `worker:${id}`, env.body);
});

workers.get('/workers/:worker_id/state', async (c) => {
  const id = c.req.param('worker_id');
  const view = await streamStub(c.env, `worker:${id}`).coordination();
  const state = view.state as { status?: string } | null;
  if (!state || state.status === 'none')
    return problem(c, fail('not-found', `worker "${id}" was never spawned`));
  return Response.json({ workerId: id, ...state });
});
