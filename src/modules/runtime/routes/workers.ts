import { Hono } from 'hono';
import { type AppEnv, problem, requireStream } from '../../../api/module-kit';
import type { Env } from '../../../env';
import { fail, fieldIssues, invalidWire, type Result } from '../../../protocol';
import type { JsonObject } from '../../../protocol/dialects';
import { streamStub } from '../../../stream/stub';
import { WorkerTaskSpec } from '../payloads';
import { appendChecked, appendEnvelope, readEnvelope } from './append-envelope';
import { envelopeId, kindPath, spawnedState } from './path-ids';

/**
 * FR-5's worker side: `POST /v1/workers` spawns one from a WorkerTaskSpec
 * (the envelope's payload); the worker process reports with
 * `POST /v1/workers/{id}/events` and follows its own feed
 * (`/v1/streams/worker:{id}/ws`), where routed channel messages arrive.
 */
export const workers = new Hono<AppEnv>();

/**
 * Where a worker is spawned must exist: an open channel and, when the
 * envelope names one, a branch of that channel that has not concluded.
 * Otherwise the worker would report to a stream that never hears it.
 */
async function spawnPlace(env: Env, body: JsonObject): Promise<Result<object>> {
  const channel = envelopeId(body, 'channelId');
  if (!channel.ok) return channel;
  const branch = body.branchId === undefined ? null : envelopeId(body, 'branchId');
  if (branch && !branch.ok) return branch;
  const [ch, br] = await Promise.all([
    streamStub(env, `channel:${channel.id}`).coordination(),
    branch ? streamStub(env, `branch:${branch.id}`).coordination() : null,
  ]);
  if (!(ch.state as { opened?: boolean } | null)?.opened)
    return fail(
      'not-found',
      `channel "${channel.id}" is not open: create it with POST /v1/channels`,
    );
  if (!branch || !br) return { ok: true };
  const b = br.state as { status?: string; channelId?: string | null } | null;
  if (!b || b.status === 'none')
    return fail('not-found', `branch "${branch.id}" was never spawned`);
  if (b.channelId !== channel.id)
    return fail(
      'invalid-wire',
      `branchId: branch "${branch.id}" belongs to channel "${b.channelId}"`,
      {
        errors: [{ path: 'branchId', message: `is a branch of channel "${b.channelId}"` }],
      },
    );
  if (b.status === 'concluded')
    return fail(
      'invalid-transition',
      `branch "${branch.id}" has concluded: it spawns no more workers`,
    );
  return { ok: true };
}

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
  // A bad spec is named before the places are looked up (the append checks it again).
  const spec = WorkerTaskSpec.safeParse(env.body.payload);
  if (!spec.success) return problem(c, invalidWire(fieldIssues(spec.error, ['payload'])));
  const place = await spawnPlace(c.env, env.body);
  if (!place.ok) return problem(c, place);
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
