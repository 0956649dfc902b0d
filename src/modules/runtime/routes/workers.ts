import { Hono } from 'hono';
import { type AppEnv, problem, requireStream } from '../../../api/module-kit';
import { appendChecked, appendEnvelope, readEnvelope } from './append-envelope';
import { envelopeId, kindPath, spawnedState } from './path-ids';

/**
 * FR-5's worker side: `POST /v1/workers` spawns one from a WorkerTaskSpec
 * (the envelope's payload); the worker process reports with
 * `POST /v1/workers/{id}/events` and follows its own feed
 * (`/v1/streams/worker:{id}/ws`), where routed channel messages arrive.
 */
export const workers = new Hono<AppEnv>();

workers.post('/workers', async (c) => {
  const env = await readEnvelope(c, {
    messageTypes: ['worker.spawned'],
    required: ['workerId', 'channelId'],
  });
  if (!env.ok) return problem(c, env);
  const worker = envelopeId(env.body, 'workerId');
  if (!worker.ok) return problem(c, worker);
  const streamId = `worker:${worker.id}`;
  const denied = requireStream(c, streamId);
  if (denied) return denied;
  // The append parses the spec, then asks the type's admission for its places (`admission.ts`).
  return appendEnvelope(c, streamId, env.body);
});

workers.use('/workers/:worker_id/*', kindPath('worker', 'worker_id'));

workers.post('/workers/:worker_id/events', (c) =>
  appendChecked(c, `worker:${c.req.param('worker_id')}`, {
    messageTypes: ['worker.progress', 'worker.completed', 'worker.failed'],
    equal: { workerId: c.req.param('worker_id') },
    required: ['channelId'],
  }),
);

workers.get('/workers/:worker_id/state', spawnedState('worker', 'worker_id'));
