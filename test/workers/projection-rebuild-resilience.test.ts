import { env, runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  mirrorSource,
  modelNames,
  newRebuild,
  projectWires,
  type RebuildState,
  stepRebuild,
} from '../../src/projection';
import { rebuilderStub } from '../../src/projection/rebuilder';
import { faults, standinUrl } from './helpers/anchoring';
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
import { WireFactory } from './helpers/projection-fixtures';
import { comparableDump, followRebuild, runRebuild, untilQuiet } from './helpers/projection-live';

/**
 * A rebuild replaces read models that users are reading, from a mirror that
 * may lag or fail, on behalf of a caller that may hang up. None of that may
 * lose a Wire, leave a model stuck, or show readers empty tables.
 */

const ADMIN = () => authHeaders('human:ops', ['admin']);

/**
 * A task claimed, started and half done by an agent with capacity; answers
 * once the read models have taken it in, with their dump (`live`).
 */
async function workload() {
  const agent = uid('dev');
  await setCapacity(agent, 4, 4);
  const task = uid('T');
  await offer(task, 'developer', 1, 'project:resilience');
  const won = await claim(task, agent, { units: 1 });
  expect(won.status).toBe(201);
  const token = String(won.body.fencing_token);
  await lifecycle(task, agent, 'task.started', token);
  await lifecycle(task, agent, 'review.concern', token, { concern: 'y'.repeat(1500) });
  await untilQuiet();
  return { agent, task, token, live: await comparableDump() };
}

async function projectionStatus() {
  const res = await SELF.fetch('https://ws.test/v1/admin/projection', { headers: await ADMIN() });
  const body = (await res.json()) as { models: { model: string; status: string }[] };
  return Object.fromEntries(body.models.map((m) => [m.model, m.status]));
}

async function startRebuild() {
  return SELF.fetch('https://ws.test/v1/admin/rebuild', { method: 'POST', headers: await ADMIN() });
}

// Every read model the registry lists (modules add theirs), and wire_events.
const ALL_READY = Object.fromEntries(['wire_events', ...modelNames()].map((m) => [m, 'ready']));
const ALL_MODELS = [...modelNames()].sort().join(',');

afterEach(async () => {
  // Every scope, the per-topic mirror lag included.
  const res = await fetch(`${standinUrl()}/__standin/reset-faults`, { method: 'POST' });
  expect(res.status).toBe(200);
});

describe('a rebuild runs apart from its caller', () => {
  it('goes on to its end when the caller hangs up, through mirror errors', async () => {
    const { live } = await workload();

    // The mirror fails: the rebuild retries instead of giving up at once.
    await faults({ mirrorUnavailable: true });
    const res = await startRebuild();
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"phase":"start"');
    // The caller hangs up mid-rebuild.
    await reader.cancel();
    expect(Object.values(await projectionStatus())).toContain('rebuilding');

    // One rebuild at a time: a second is refused, naming the running one.
    const second = await startRebuild();
    expect(second.status).toBe(409);
    expect(second.headers.get('Content-Type')).toBe('application/problem+json');
    expect(await second.json()).toMatchObject({
      type: '/problems/rebuild-running',
      rebuild_id: res.headers.get('Wirestream-Rebuild-Id'),
    });

    await new Promise((r) => setTimeout(r, 300));
    await faults({});
    const lines = await followRebuild();
    expect(lines[0]).toMatchObject({ phase: 'start', full: true });
    expect(lines.some((l) => l.phase === 'retry')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await projectionStatus()).toEqual(ALL_READY);
    const status = await SELF.fetch('https://ws.test/v1/admin/projection', {
      headers: await ADMIN(),
    });
    expect(((await status.json()) as { rebuild: unknown }).rebuild).toMatchObject({
      id: res.headers.get('Wirestream-Rebuild-Id'),
      status: 'done',
      full: true,
    });
    expect(await comparableDump()).toEqual(live);
  });

  it('gives up after its retries, marks the models failed, and the next rebuild recovers', async () => {
    const { live } = await workload();
    await faults({ mirrorUnavailable: true });
    const lines = await runRebuild();
    expect(lines.filter((l) => l.phase === 'retry').map((l) => l.attempt)).toEqual([1, 2, 3]);
    expect(lines.at(-1)).toMatchObject({ phase: 'error' });
    expect(String(lines.at(-1)?.detail)).toMatch(/mirror .* answered 503/);
    expect(await projectionStatus()).toMatchObject({ stream_state: 'failed' });
    // Readers are told, and still see the rows.
    const read = await SELF.fetch('https://ws.test/v1/streams', {
      headers: await authHeaders('human:reader', ['read']),
    });
    expect(read.headers.get('Wirestream-Stale-Models')).toBe(ALL_MODELS);
    expect(((await read.json()) as { streams: unknown[] }).streams.length).toBeGreaterThan(0);

    // A model left failed counts as stale: `--stale` is the way back.
    await faults({});
    const again = await runRebuild({ models: 'stale' });
    expect(again[0]).toMatchObject({
      phase: 'start',
      models: [...modelNames()],
    });
    expect(again.at(-1)).toMatchObject({ phase: 'done' });
    expect(await projectionStatus()).toEqual(ALL_READY);
    expect(await comparableDump()).toEqual(live);
  }, 30_000);
});

describe('a rebuild that gives up at its last step', () => {
  it('names the models stale while the Wires that came during it are not folded', async () => {
    // A Wire arrived while the rebuild held stream_state: stored, not folded.
    const f = new WireFactory();
    const stream = `notes:${uid('late')}`;
    const first = f.wire(stream, 'note.added', {}, { wire_id: `${stream}-1` });
    const late = f.wire(stream, 'note.added', {}, { wire_id: `${stream}-2` });
    await projectWires(env.DB, [first]);
    const meta = (status: string) =>
      env.DB.prepare(`UPDATE projection_meta SET status = ?1 WHERE model = 'stream_state'`)
        .bind(status)
        .run();
    await meta('rebuilding');
    await projectWires(env.DB, [late]);
    // Refolded and back to live ('finish'); the catch-up fails past every retry
    // (here: a row it cannot read, standing in for D1 failing a minute).
    await meta('ready');
    const broken = `notes:${uid('broken')}`;
    await env.DB.prepare(
      `INSERT INTO wire_events (wire_id, stream_id, stream_seq, type, sender, ts, payload, received_at)
       VALUES ('w-broken', ?1, 1, 'note.added', 'system', '2026-05-01T16:00:00Z', 'not json', '2026-05-01T16:00:00Z')`,
    )
      .bind(broken)
      .run();
    const rebuilder = rebuilderStub(env);
    const state = { ...newRebuild([], ['stream_state'], Date.now()), phase: 'settle' };
    await runInDurableObject(rebuilder, async (_instance, ctx) => {
      ctx.storage.sql.exec(
        `INSERT OR REPLACE INTO job (one, id, status, state, attempts, started_at)
         VALUES (1, 'settle-fails', 'running', ?, 0, ?)`,
        JSON.stringify(state),
        new Date().toISOString(),
      );
      await ctx.storage.setAlarm(Date.now());
    });
    try {
      for (let i = 0; i < 6; i++) await runDurableObjectAlarm(rebuilder);
      expect(await rebuilder.current()).toMatchObject({ id: 'settle-fails', status: 'failed' });

      const read = await SELF.fetch('https://ws.test/v1/streams', {
        headers: await authHeaders('human:reader', ['read']),
      });
      const rows = await env.DB.prepare('SELECT last_seq FROM stream_state WHERE stream_id = ?1')
        .bind(stream)
        .first<{ last_seq: number }>();
      expect(rows?.last_seq).toBe(1);
      // The row lags its stream: readers must be told.
      expect(read.headers.get('Wirestream-Stale-Models') ?? '(none)').toContain('stream_state');
    } finally {
      await env.DB.prepare('DELETE FROM wire_events WHERE stream_id = ?1').bind(broken).run();
    }
    try {
      // The way back, as after any failed rebuild.
      expect((await runRebuild({ models: 'stale' })).at(-1)).toMatchObject({ phase: 'done' });
      expect(await projectionStatus()).toEqual(ALL_READY);
      const after = await env.DB.prepare('SELECT last_seq FROM stream_state WHERE stream_id = ?1')
        .bind(stream)
        .first<{ last_seq: number }>();
      expect(after?.last_seq).toBe(2);
    } finally {
      // No topic holds these Wires: the other tests wait until D1 matches the topics.
      await env.DB.batch(
        ['wire_events', 'stream_state'].map((table) =>
          env.DB.prepare(`DELETE FROM ${table} WHERE stream_id = ?1`).bind(stream),
        ),
      );
    }
  }, 60_000);
});

describe('a rebuild against a lagging mirror', () => {
  it('keeps the anchored Wires the mirror does not show yet', async () => {
    const { task, live } = await workload();
    const topics = await env.DB.prepare(
      `SELECT hcs_topic_id AS topic, COUNT(*) AS n FROM wire_events
       WHERE stream_id = ?1 GROUP BY hcs_topic_id`,
    )
      .bind(taskStream(task))
      .all<{ topic: string; n: number }>();
    expect(topics.results.length).toBeGreaterThan(0);
    // Ten minutes behind: the mirror shows none of these topics' messages.
    let hidden = 0;
    for (const { topic } of topics.results) {
      await faults({ topicId: topic, mirrorLagMs: 600_000 });
      const onTopic = await env.DB.prepare(
        'SELECT COUNT(*) AS n FROM wire_events WHERE hcs_topic_id = ?1',
      )
        .bind(topic)
        .first<{ n: number }>();
      hidden += onTopic?.n ?? 0;
    }

    const lines = await runRebuild();
    expect(lines.at(-1)).toMatchObject({ phase: 'done', ahead_of_mirror: hidden });
    expect(await comparableDump()).toEqual(live);
    const read = await SELF.fetch(`https://ws.test/v1/tasks/${task}`, {
      headers: await authHeaders('human:reader', ['read']),
    });
    expect(((await read.json()) as { current: unknown }).current).toMatchObject({
      status: 'started',
      concerns: 1,
    });
  });
});

describe('reading while a rebuild runs', () => {
  it('serves the old rows, names the stale models, and sees new Wires through wait_for', async () => {
    const { agent, task, live } = await workload();
    const reader = await authHeaders('human:reader', ['read']);
    const topics = (
      await env.DB.prepare('SELECT topic_id FROM projection_topics').all<{ topic_id: string }>()
    ).results.map((t) => t.topic_id);

    // Step the rebuild by hand up to its folding, as the Rebuilder would.
    const source = mirrorSource(standinUrl());
    const step = (s: RebuildState) => stepRebuild(env.DB, source, s, () => {}, { foldPage: 5 });
    let state = newRebuild(topics, undefined, Date.now());
    while (state.phase !== 'fold') state = await step(state);

    const during = await SELF.fetch(`https://ws.test/v1/tasks/${task}`, { headers: reader });
    expect(during.status).toBe(200);
    expect(during.headers.get('Wirestream-Stale-Models')).toBe(ALL_MODELS);
    expect(((await during.json()) as { current: unknown }).current).toMatchObject({
      status: 'started',
    });
    const streams = await SELF.fetch('https://ws.test/v1/streams?limit=500', { headers: reader });
    expect(((await streams.json()) as { streams: unknown[] }).streams).toHaveLength(
      live.stream_state.length,
    );

    // A Wire appended now is readable with wait_for, though not folded yet.
    const beat = await send(`agent:${agent}`, 'agent.heartbeat', `agent:${agent}`, {});
    expect(beat.status).toBe(201);
    const waited = await SELF.fetch(
      `https://ws.test/v1/agents/${agent}?wait_for=${beat.body.wire_id}&wait_ms=5000`,
      { headers: reader },
    );
    expect(waited.headers.get('Wirestream-Wait-For')).toBe('visible');

    // Half-way through folding, readers still see every stream.
    state = await step(state);
    expect(state.phase).toBe('fold');
    const half = await SELF.fetch('https://ws.test/v1/streams?limit=500', { headers: reader });
    expect(((await half.json()) as { streams: unknown[] }).streams).toHaveLength(
      live.stream_state.length,
    );

    while (state.phase !== 'done') state = await step(state);
    const after = await SELF.fetch(`https://ws.test/v1/agents/${agent}`, { headers: reader });
    expect(after.headers.get('Wirestream-Stale-Models')).toBeNull();
    const dump = await comparableDump();
    const agentRow = dump.stream_state.find((s) => s.stream_id === `agent:${agent}`);
    expect(agentRow?.last_wire_id).toBe(beat.body.wire_id);
  });
});
