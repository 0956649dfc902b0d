import { env, runDurableObjectAlarm, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { faults, requestsOf, untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import {
  claim,
  lifecycle,
  offer,
  send,
  setCapacity,
  taskStream,
  uid,
} from './helpers/coordination';
import { directSubmitter, runCron } from './helpers/listener';
import { comparableDump, rebuildWithout, runRebuild, untilQuiet } from './helpers/projection-live';
import { post, uniqueStream, wire11 } from './helpers/wires';

async function get(path: string) {
  const res = await SELF.fetch(`https://ws.test/v1${path}`, {
    headers: await authHeaders('human:reader', ['read']),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe('live projection', () => {
  it('makes an appended Wire readable from D1 with ?wait_for=', async () => {
    const task = uid('T');
    const offered = await offer(task, 'developer');
    expect(offered.status).toBe(201);
    const wireId = String(offered.body.wire_id);
    const { res, body } = await get(`/tasks/${task}?wait_for=${wireId}`);
    expect(res.headers.get('Wirestream-Wait-For')).toBe('visible');
    expect(Number(res.headers.get('Wirestream-Watermark'))).toBeGreaterThan(0);
    expect(body.current).toMatchObject({ task_id: task, status: 'available', role: 'developer' });
  });

  it('says timeout when the awaited Wire never shows up', async () => {
    const { res } = await get('/streams?wait_for=wire_never_sent&wait_ms=100');
    expect(res.status).toBe(200);
    expect(res.headers.get('Wirestream-Wait-For')).toBe('timeout');
  });
});

describe('rebuild from the HCS mirror', () => {
  it('reproduces every row of every read model and reports progress', async () => {
    const agent = uid('dev');
    await setCapacity(agent, 4, 4);
    const task = uid('T');
    await offer(task, 'developer', 1, 'project:rebuild');
    const won = await claim(task, agent, { units: 2 });
    expect(won.status).toBe(201);
    const token = String(won.body.fencing_token);
    await lifecycle(task, agent, 'task.started', token);
    await lifecycle(task, agent, 'artifact.ready', token, {
      artifact_type: 'migration',
      artifact_ref: 'r2://runs/1.sql',
      sha256: 'b'.repeat(64),
    });
    // Over 1024 bytes: anchored as several HCS chunks, reassembled by the rebuild.
    await lifecycle(task, agent, 'review.concern', token, { concern: 'x'.repeat(1900) });
    await lifecycle(task, agent, 'task.complete', token, { output_ref: 'git:1' });
    await send(`agent:${agent}`, 'agent.heartbeat', `agent:${agent}`, {});
    // A lease that lapses: the coordinator's alarm records the expiry and
    // re-offers the task as attempt 2 (system Wires, anchored like the rest).
    const lapsed = uid('T');
    await offer(lapsed, 'developer', 1, 'project:rebuild');
    // 3 s, not 1: on a busy machine a 1 s lease was already past when the
    // claim reached its decider (422 "lease_expires_at must be in the future").
    expect((await claim(lapsed, agent, { leaseSeconds: 3 })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 3200));
    await runDurableObjectAlarm(env.STREAMS.get(env.STREAMS.idFromName(taskStream(lapsed))));
    await untilQuiet();
    const live = await comparableDump();

    const lines = await runRebuild();
    expect(lines[0]).toMatchObject({ phase: 'start', full: true });
    expect(lines.some((l) => l.phase === 'read')).toBe(true);
    expect(lines.some((l) => l.phase === 'write')).toBe(true);
    const done = lines.at(-1);
    expect(done).toMatchObject({ phase: 'done', wires: live.wire_events.length });

    expect(await comparableDump()).toEqual(live);
    const agentRow = live.agent_runtime_state.find((a) => a.agent_id === agent);
    expect(agentRow).toMatchObject({ available_units: 4, reserved_units: 0 });
    const taskRow = live.task_run_state.find((t) => t.task_id === task);
    expect(taskRow).toMatchObject({ status: 'complete', concerns: 1, output_ref: 'git:1' });
    const attempts = live.task_run_state.filter((t) => t.task_id === lapsed);
    expect(attempts.map((t) => [t.attempt, t.status])).toEqual([
      [1, 'expired'],
      [2, 'available'],
    ]);
  });

  it('rebuilds only the model whose reducer version changed', async () => {
    await offer(uid('T'), 'developer');
    await untilQuiet();
    // Pretend task_run_state was built by an older reducer, and scribble on
    // both tables: only the stale model may be rebuilt.
    await env.DB.batch([
      env.DB.prepare(
        `UPDATE projection_meta SET reducer_version = 0 WHERE model = 'task_run_state'`,
      ),
      env.DB.prepare(`UPDATE task_run_state SET status = 'scribbled'`),
      env.DB.prepare(`UPDATE stream_state SET status = 'scribbled'`),
    ]);
    const lines = await runRebuild({ models: 'stale' });
    expect(lines[0]).toMatchObject({ phase: 'start', models: ['task_run_state'], full: false });
    const statuses = await env.DB.batch<{ status: string }>([
      env.DB.prepare(`SELECT DISTINCT status FROM task_run_state`),
      env.DB.prepare(`SELECT DISTINCT status FROM stream_state`),
    ]);
    expect(statuses[0]?.results.map((r) => r.status)).not.toContain('scribbled');
    expect(statuses[1]?.results.map((r) => r.status)).toEqual(['scribbled']);
    const status = await SELF.fetch('https://ws.test/v1/admin/projection', {
      headers: await authHeaders('human:ops', ['admin']),
    });
    const models = ((await status.json()) as { models: Record<string, unknown>[] }).models;
    expect(models.find((m) => m.model === 'task_run_state')).toMatchObject({
      reducer_version: 2,
      code_version: 2,
      status: 'ready',
      stale: false,
    });
  });

  it('leaves out what the listener refused: anyone may write to a topic', async () => {
    const project = uniqueStream('project');
    const topic = `project.${project.slice('project:'.length)}`;
    expect((await post(project, wire11(project, { correlation_id: null }))).status).toBe(201);
    const [anchored] = await untilAnchored(project, [topic]);
    const submit = directSubmitter(anchored?.anchor.hcs_topic_id ?? '');
    // A forged offer of a task nobody offered, a forged `system` Wire next on
    // the project, and a Wire an agent put there directly, which is ingested.
    const task = uid('T');
    await submit(
      JSON.stringify(
        wire11(taskStream(task), {
          stream_seq: 1,
          sender: 'coordinator:mallory',
          type: 'task.available',
          payload: { task_id: task, role: 'developer' },
        }),
      ),
    );
    await submit(
      JSON.stringify(
        wire11(project, { stream_seq: 2, sender: 'system', correlation_id: null, payload: {} }),
      ),
    );
    const direct = uniqueStream('project');
    const agentWire = wire11(direct, { stream_seq: 1, correlation_id: null });
    await submit(JSON.stringify(agentWire));
    await runCron();
    await untilQuiet();
    expect((await get(`/tasks/${task}`)).res.status).toBe(404);

    const lines = await runRebuild();
    expect((await get(`/tasks/${task}`)).res.status).toBe(404);
    expect(lines.at(-1)).toMatchObject({ phase: 'done', skipped: 2 });
    const wires = (await get(`/wires?stream_id=${project}`)).body.wires as { sender: string }[];
    expect(wires.map((w) => w.sender)).toEqual(['agent:quinn-07']);
    const ingested = (await get(`/wires?stream_id=${direct}`)).body.wires;
    expect(ingested).toMatchObject([{ wire_id: agentWire.wire_id, stream_seq: 1 }]);
  }, 60_000);

  it('takes an unconfirmed Wire only from the message its topic sent, not a copy posted first', async () => {
    const project = uniqueStream('project');
    const topic = `project.${project.slice('project:'.length)}`;
    expect((await post(project, wire11(project, { correlation_id: null }))).status).toBe(201);
    const [first] = await untilAnchored(project, [topic]);
    const topicId = first?.anchor.hcs_topic_id ?? '';
    // Someone who knows the next Wire's id posts a copy of it with another
    // payload, straight to HCS, ahead of the coordinator's own message.
    const genuine = wire11(project, { correlation_id: null, payload: { concern: 'genuine' } });
    const forged = { ...genuine, stream_seq: 2, payload: { concern: 'forged' } };
    await directSubmitter(topicId)(JSON.stringify(forged));
    // The coordinator's message then waits for consensus: the topic holds
    // the Wire unconfirmed while the rebuild reads the forged copy.
    await faults({ topicId, receiptDelayMs: 6_000 });
    try {
      const submitsBefore = (await requestsOf(topicId)).submit;
      expect((await post(project, genuine)).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while ((await requestsOf(topicId)).submit === submitsBefore && Date.now() < deadline) {
        await runDurableObjectAlarm(env.TOPICS.get(env.TOPICS.idFromName(topic)));
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await requestsOf(topicId)).submit).toBeGreaterThan(submitsBefore);

      const lines = await runRebuild();
      expect(lines.at(-1)).toMatchObject({ phase: 'done' });
      const payloads = async () =>
        ((await get(`/wires?stream_id=${project}`)).body.wires as { payload: unknown }[]).map(
          (w) => w.payload,
        );
      expect(await payloads()).not.toContainEqual({ concern: 'forged' });
    } finally {
      await faults({ topicId });
    }
    // Once consensus shows the topic's own message, the Wire reads as appended.
    await untilQuiet();
    const wires = (await get(`/wires?stream_id=${project}`)).body.wires;
    expect(wires).toMatchObject([
      { stream_seq: 1 },
      { wire_id: genuine.wire_id, stream_seq: 2, payload: { concern: 'genuine' } },
    ]);
  }, 60_000);

  it('restores from HCS a Wire an agent put there directly, which names no stream_seq', async () => {
    const project = uniqueStream('project');
    const topic = `project.${project.slice('project:'.length)}`;
    expect((await post(project, wire11(project, { correlation_id: null }))).status).toBe(201);
    const [anchored] = await untilAnchored(project, [topic]);
    const direct = uniqueStream('project');
    const agentWire = wire11(direct, { correlation_id: null });
    await directSubmitter(anchored?.anchor.hcs_topic_id ?? '')(JSON.stringify(agentWire));
    await runCron();
    await untilQuiet();
    const before = (await get(`/wires?stream_id=${direct}`)).body.wires;
    expect(before).toMatchObject([{ wire_id: agentWire.wire_id, stream_seq: 1 }]);

    // D1 loses the stream: only HCS (and what the topic took) can give it back.
    expect((await rebuildWithout([direct])).at(-1)).toMatchObject({ phase: 'done' });
    expect((await get(`/wires?stream_id=${direct}`)).body.wires).toEqual(before);
    expect((await get(`/streams?type=project&limit=500`)).body.streams).toContainEqual(
      expect.objectContaining({ stream_id: direct, last_seq: 1 }),
    );
  }, 60_000);

  it('refuses a rebuild without the admin scope and an unknown model', async () => {
    const res = await SELF.fetch('https://ws.test/v1/admin/rebuild', {
      method: 'POST',
      headers: await authHeaders('agent:nobody', ['append', 'read']),
    });
    expect(res.status).toBe(403);
    const bad = await SELF.fetch('https://ws.test/v1/admin/rebuild', {
      method: 'POST',
      headers: {
        ...(await authHeaders('human:ops', ['admin'])),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ models: ['tasks'] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: unknown[] }).errors).toMatchObject([
      { path: 'models.0' },
    ]);
  });
});
