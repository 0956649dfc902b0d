import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import {
  concludeBranch,
  envelope,
  events,
  eventually,
  type Json,
  openChannel,
  report,
  rt,
  say,
  spawnedBranch,
  spawnWorker,
  state,
} from './helpers/runtime';
import { Subscriber } from './helpers/subscriber';

async function workerState(workerId: string): Promise<Json> {
  return (await rt('GET', `/workers/${workerId}/state`)).body;
}

describe('Runtime v1 workers', () => {
  it('acceptance 2: an interactive worker receives a routed message and changes status', async () => {
    const channelId = await openChannel();
    const { workerId, answer } = await spawnWorker(channelId, {
      mode: 'interactive',
      toolset: ['search'],
    });
    expect(answer.status).toBe(201);
    // The worker process follows its own feed (stream follow over WebSocket).
    const feed = await Subscriber.open(`worker:${workerId}`, 0);
    expect(
      (
        await report(
          workerId,
          channelId,
          'worker.progress',
          { status: 'running', note: 'started' },
          { workerId },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await report(
          workerId,
          channelId,
          'worker.progress',
          { status: 'waiting', note: 'need input' },
          { workerId },
        )
      ).status,
    ).toBe(201);
    expect((await workerState(workerId)).status).toBe('waiting');

    const routed = await rt(
      'POST',
      `/channels/${channelId}/route/${workerId}`,
      envelope('channel.message.received', channelId, { text: 'use the staging database' }),
    );
    expect(routed.status).toBe(201);
    await feed.until(() => feed.seqs.includes(4));
    feed.close();
    const w = await workerState(workerId);
    expect(w.status).toBe('running');
    expect(w.routedMessages).toBe(1);
    const wires = (await rt('GET', `/streams/worker:${workerId}/wires`)).body.wires as Json[];
    const delivered = wires.at(-1) as { type: string; payload: Json };
    expect(delivered.type).toBe('runtime.channel.message.received');
    expect(delivered.payload.text).toBe('use the staging database');
    const decided = (await events(channelId))
      .filter((e) => e.messageType === 'channel.route.decided')
      .at(-1);
    expect(decided?.payload).toMatchObject({
      rule: 'explicit-route',
      action: 'route_worker',
      workerId,
    });
    // The channel hears the worker's lifecycle.
    await eventually(async () => {
      const s = await state(channelId);
      return (s.workers as Record<string, Json>)[workerId]?.status === 'waiting';
    });
  });

  it('enforces the status transitions', async () => {
    const channelId = await openChannel();
    const { workerId } = await spawnWorker(channelId, { mode: 'fire_and_forget' });
    const again = await rt(
      'POST',
      '/workers',
      envelope(
        'worker.spawned',
        channelId,
        { goal: 'g', toolset: ['x'], mode: 'interactive' },
        { workerId },
      ),
    );
    expect(again.status).toBe(409);
    const routed = await rt(
      'POST',
      `/channels/${channelId}/route/${workerId}`,
      envelope('channel.message.received', channelId, { text: 'x' }),
    );
    expect(routed.status).toBe(409);
    expect(routed.body.type).toContain('worker-not-interactive');
    const done = await report(workerId, channelId, 'worker.completed', {
      report: { summary: 'built', outcome: 'success' },
      artifactRefs: [],
      tokenUsage: { input: 10, output: 5 },
    });
    expect(done.status).toBe(201);
    const late = await report(workerId, channelId, 'worker.progress', { status: 'running' });
    expect(late.status).toBe(409);
    expect(String(late.body.detail)).toContain('completed');
    expect(
      (await report('never-spawned', channelId, 'worker.progress', { status: 'running' })).status,
    ).toBe(404);
    const bad = await report(workerId, channelId, 'worker.progress', { status: 'sleeping' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('payload.status');
    expect((await workerState(workerId)).status).toBe('completed');
  });

  it('refuses a bad WorkerTaskSpec precisely and stores nothing', async () => {
    const channelId = await openChannel();
    const cases: [Json, string][] = [
      [{ goal: 'g', toolset: [], mode: 'interactive' }, 'payload.toolset'],
      [{ goal: 'g', toolset: ['x'], mode: 'sometimes' }, 'payload.mode'],
      [{ toolset: ['x'], mode: 'interactive' }, 'payload.goal'],
    ];
    for (const [spec, field] of cases) {
      const res = await rt(
        'POST',
        '/workers',
        envelope('worker.spawned', channelId, spec, { workerId: 'wk-bad' }),
      );
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    const noId = await rt(
      'POST',
      '/workers',
      envelope('worker.spawned', channelId, { goal: 'g', toolset: ['x'], mode: 'interactive' }),
    );
    expect(noId.status).toBe(422);
    expect(JSON.stringify(noId.body)).toContain('workerId');
    expect((await rt('GET', '/workers/wk-bad/state')).status).toBe(404);
  });

  it('fails a worker silent past its timeout, with the reason, by the alarm', async () => {
    const channelId = await openChannel();
    const { workerId } = await spawnWorker(channelId, { mode: 'interactive', timeoutSeconds: 1 });
    const failed = await eventually(async () => {
      const w = await workerState(workerId);
      return w.status === 'failed' ? w : null;
    }, 10_000);
    expect(failed.failure).toMatchObject({ reason: 'timeout' });
    expect(String((failed.failure as Json).message)).toContain('silent for more than 1 s');
    await eventually(async () => {
      const evs = await events(channelId);
      return evs.some((e) => e.messageType === 'worker.failed' && e.workerId === workerId);
    });
  });

  it('spawns a worker from a channel rule', async () => {
    const channelId = await openChannel();
    await say(channelId, 'build the release');
    const decided = (await events(channelId)).find(
      (e) => e.messageType === 'channel.route.decided',
    );
    const workerId = (decided?.payload as Json | undefined)?.workerId as string;
    const w = await eventually(async () => {
      const s = await rt('GET', `/workers/${workerId}/state`);
      return s.status === 200 ? s.body : null;
    });
    expect(w).toMatchObject({
      status: 'spawned',
      mode: 'fire_and_forget',
      toolset: ['shell', 'git'],
      channelId,
    });
  });

  it('refuses to spawn a worker whose channelId or branchId is no id (422 naming it), storing nothing', async () => {
    const channelId = await openChannel();
    const cases: [string, Json, string][] = [
      ['not a channel/id', {}, 'channelId'],
      [channelId, { branchId: 'no branch!' }, 'branchId'],
    ];
    for (const [channel, more, path] of cases) {
      const { workerId, answer } = await spawnWorker(channel, { mode: 'interactive' }, more);
      expect([path, answer.status]).toEqual([path, 422]);
      expect(answer.body.type).toBe('/problems/invalid-wire');
      expect(answer.body.errors).toEqual([expect.objectContaining({ path })]);
      expect((await rt('GET', `/workers/${workerId}/state`)).status).toBe(404);
    }
  });

  it('refuses to spawn a worker into a channel that is not open (404), writing nothing anywhere', async () => {
    const channelId = uid('never-opened');
    const { workerId, answer } = await spawnWorker(channelId, { mode: 'interactive' });
    expect(answer.status).toBe(404);
    expect(answer.body.type).toBe('/problems/not-found');
    expect(String(answer.body.detail)).toContain(`channel "${channelId}" is not open`);
    expect((await rt('GET', `/workers/${workerId}/state`)).status).toBe(404);
    expect((await rt('GET', `/channels/${channelId}/events`)).status).toBe(404);
  });

  it('refuses to spawn a worker in a branch never spawned (404), of another channel (422) or concluded (409)', async () => {
    const { channelId, branchId } = await spawnedBranch();
    const other = await openChannel();

    const ghost = await spawnWorker(channelId, { mode: 'interactive' }, { branchId: uid('ghost') });
    expect(ghost.answer.status).toBe(404);
    const foreign = await spawnWorker(other, { mode: 'interactive' }, { branchId });
    expect(foreign.answer.status).toBe(422);
    expect(foreign.answer.body.errors).toEqual([expect.objectContaining({ path: 'branchId' })]);
    const concluded = await concludeBranch(branchId, channelId, 'nothing there');
    expect(concluded.status).toBe(201);
    const late = await spawnWorker(channelId, { mode: 'interactive' }, { branchId });
    expect(late.answer.status).toBe(409);
    expect(late.answer.body.type).toBe('/problems/invalid-transition');
    for (const { workerId } of [ghost, foreign, late])
      expect((await rt('GET', `/workers/${workerId}/state`)).status).toBe(404);
    expect(Object.keys((await state(channelId)).workers as Json)).toEqual([]);
    expect((await rt('GET', `/branches/${branchId}/state`)).body.workers).toEqual({});
  });
});
