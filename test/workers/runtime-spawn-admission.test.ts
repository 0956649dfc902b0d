import { describe, expect, it } from 'vitest';
import { readWires, untilAnchored } from './helpers/anchoring';
import { uid } from './helpers/coordination';
import { alertsFor, directSubmitter, runCron } from './helpers/listener';
import {
  AGENT,
  concludeBranch,
  envelope,
  eventually,
  type Json,
  openChannel,
  rt,
  spawnedBranch,
  spawnWorker,
  state,
} from './helpers/runtime';
import { post, uniqueStream, wire11 } from './helpers/wires';

/**
 * A worker is spawned only into an open channel (and a live branch of it),
 * whichever way the spawn arrives: `POST /v1/workers`, a raw Wire on the
 * generic `POST /v1/streams/worker:{id}/wires`, or a Wire put on HCS
 * directly. The check is `runtime.worker.spawned`'s admission, which the
 * kernel runs on every entry point. A branch is spawned only by its channel.
 */

/** A raw Wire 1.1 spawn of `workerId`, as a client could post it without the runtime's route. */
function rawSpawn(workerId: string, members: Json) {
  return wire11(`worker:${workerId}`, {
    type: 'runtime.worker.spawned',
    sender: AGENT,
    correlation_id: null,
    ts: new Date().toISOString(), // a worker's silence is timed from its Wires' ts
    payload: {
      goal: 'raw spawn',
      toolset: ['shell'],
      mode: 'interactive',
      timeoutSeconds: 3_600,
      $envelope: { workerId, protocolVersion: '1.0', ...members },
    },
  });
}

const workerStatus = async (workerId: string) =>
  (await rt('GET', `/workers/${workerId}/state`)).status;

describe('where a worker may be spawned, on every entry point', { timeout: 40_000 }, () => {
  it('refuses a raw spawn on the generic route into a channel that is not open (404), storing nothing', async () => {
    const workerId = uid('wk-raw');
    const channelId = uid('never-opened');
    const res = await post(`worker:${workerId}`, rawSpawn(workerId, { channelId }));
    expect(res.status).toBe(404);
    const body = (await res.json()) as Json;
    expect(body.type).toBe('/problems/not-found');
    expect(String(body.detail)).toContain(`channel "${channelId}" is not open`);
    expect(body.errors).toEqual([expect.objectContaining({ path: 'channelId' })]);
    expect(await workerStatus(workerId)).toBe(404);
    expect((await rt('GET', `/streams/worker:${workerId}/wires`)).body.last_seq).toBe(0);
  });

  it('names channelId or branchId when a raw spawn lacks one or names a foreign branch (422)', async () => {
    const { branchId } = await spawnedBranch();
    const other = await openChannel();
    const cases: [Json, string, string][] = [
      [{}, 'channelId', 'is required'],
      [{ channelId: 'no channel!' }, 'channelId', 'channelId must be'],
      [{ channelId: other, branchId }, 'branchId', 'is a branch of channel'],
    ];
    for (const [members, path, message] of cases) {
      const workerId = uid('wk-raw');
      const res = await post(`worker:${workerId}`, rawSpawn(workerId, members));
      const body = (await res.json()) as Json;
      expect([path, res.status, body.type]).toEqual([path, 422, '/problems/invalid-wire']);
      expect(body.errors).toEqual([
        expect.objectContaining({ path, message: expect.stringContaining(message) }),
      ]);
      expect(await workerStatus(workerId)).toBe(404);
    }
  });

  it('accepts a raw spawn into an open channel, which then lists the worker', async () => {
    const channelId = await openChannel();
    const workerId = uid('wk-raw');
    const res = await post(`worker:${workerId}`, rawSpawn(workerId, { channelId }));
    expect(res.status).toBe(201);
    expect((await rt('GET', `/workers/${workerId}/state`)).body).toMatchObject({
      workerId,
      status: 'spawned',
      channelId,
    });
    await eventually(async () => workerId in ((await state(channelId)).workers as Json));
  });

  it('answers a retried spawn with its receipt (200, a replay) after its branch concluded, not a 409', async () => {
    const { channelId, branchId } = await spawnedBranch();
    const workerId = uid('wk');
    const spawn = envelope(
      'worker.spawned',
      channelId,
      { goal: 'once', toolset: ['shell'], mode: 'fire_and_forget' },
      { workerId, branchId },
    );
    const first = await rt('POST', '/workers', spawn);
    expect(first.status).toBe(201);
    const concluded = await concludeBranch(branchId, channelId);
    expect(concluded.status).toBe(201);
    // The same envelope again (its answer lost): the receipt, while a new spawn there is refused.
    const retry = await rt('POST', '/workers', spawn);
    expect([retry.status, retry.res.headers.get('Idempotent-Replay')]).toEqual([200, 'true']);
    expect(retry.body.stream_seq).toBe(first.body.stream_seq);
    const late = await spawnWorker(channelId, { mode: 'interactive' }, { branchId });
    expect(late.answer.status).toBe(409);
  });

  it('refuses a branch spawned directly by a client (409): only its channel spawns one', async () => {
    const channelId = await openChannel();
    const branchId = uid('br-raw');
    const res = await post(
      `branch:${branchId}`,
      wire11(`branch:${branchId}`, {
        type: 'runtime.branch.spawned',
        sender: AGENT,
        correlation_id: null,
        payload: {
          goal: 'a branch nobody routed',
          $envelope: { branchId, channelId, protocolVersion: '1.0' },
        },
      }),
    );
    const body = (await res.json()) as Json;
    expect([res.status, body.type]).toEqual([409, '/problems/invalid-transition']);
    expect(String(body.detail)).toContain('a channel spawns its branches');
    expect((await rt('GET', `/branches/${branchId}/state`)).status).toBe(404);
  });

  it('rejects a spawn put on HCS directly into a channel that is not open, and ingests one into an open channel', async () => {
    // A topic to submit to: the one an ordinary project stream is anchored on.
    const project = uniqueStream('project');
    expect((await post(project, wire11(project, { correlation_id: null }))).status).toBe(201);
    const [anchored] = await untilAnchored(project, [`project.${project.slice(8)}`]);
    const topicId = anchored?.anchor.hcs_topic_id ?? '';
    expect(topicId).not.toBe('');

    const channelId = await openChannel();
    const nowhere = uid('never-opened');
    const refused = rawSpawn(uid('wk-hcs'), { channelId: nowhere });
    const admitted = rawSpawn(uid('wk-hcs'), { channelId });
    const submit = directSubmitter(topicId);
    for (const wire of [refused, admitted]) await submit(JSON.stringify(wire));
    await runCron();

    const alerts = (await alertsFor(topicId)).map((a) => [a.kind, a.detail]);
    expect(alerts).toEqual([
      ['hcs-first-rejected', expect.stringContaining(`channel "${nowhere}" is not open`)],
      ['hcs-first-ingested', expect.stringContaining(admitted.wire_id)],
    ]);
    expect(await readWires(refused.stream_id)).toEqual([]);
    expect((await readWires(admitted.stream_id)).map((w) => w.wire_id)).toEqual([admitted.wire_id]);
  });
});
