import { Hono } from 'hono';
import type { AppEnv } from '../../../api/module-kit';
import { appendChecked, appendOpening } from './append-envelope';
import { kindPath, spawnedState } from './path-ids';

/**
 * FR-5's worker side: `POST /v1/workers` spawns one from a WorkerTaskSpec
 * (the envelope's payload); the worker process reports with
 * `POST /v1/workers/{id}/events` and follows its own feed
 * (`/v1/streams/worker:{id}/ws`), where routed channel messages arrive.
 */
export const workers = new Hono<AppEnv>();

workers.post('/workers', (c) =>
  appendOpening(c, 'worker', 'workerId', {
    messageTypes: ['worker.spawned'],
    required: ['workerId'],
  }),
);

workers.use('/workers/:worker_id/*', kindPath('worker', 'worker_id'));

workers.post('/workers/:worker_id/events', (c) =>
  appendChecked(c, `worker:${c.req.param('worker_id')}`, {
    messageTypes: ['worker.progress', 'worker.completed', 'worker.failed'],
    equal: { workerId: c.req.param('worker_id') },
    required: ['channelId'],
  }),
);

workers.get('/workers/:worker_id/state', spawnedState('worker', 'worker_id'));
