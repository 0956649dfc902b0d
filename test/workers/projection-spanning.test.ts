import { env, runDurableObjectAlarm, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { projectWires } from '../../src/projection';
import { rowsOf, selectRows, writeRows } from '../../src/projection/model-sql';
import { applyWire, foldStream, type Reducer } from '../../src/projection/reducer';
import type { BaseRow } from '../../src/projection/types';
import type { Wire } from '../../src/protocol';
import { authHeaders } from './helpers/auth';
import { claim, lifecycle, offer, setCapacity, taskStream, uid } from './helpers/coordination';
import { WireFactory } from './helpers/projection-fixtures';
import { runRebuild, untilQuiet } from './helpers/projection-live';

async function get(path: string) {
  const res = await SELF.fetch(`https://ws.test/v1${path}`, {
    headers: await authHeaders('human:reader', ['read']),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Progress {
  project_id: string;
  attempts: number;
  statuses: Record<string, number>;
}

async function progress(projectId: string): Promise<Progress> {
  const { status, body } = await get(`/projects/${projectId}/progress`);
  expect(status).toBe(200);
  return body as unknown as Progress;
}

/** What `/v1/tasks` shows of a project's attempts, counted by status. */
async function countedFromTasks(projectStream: string): Promise<Record<string, number>> {
  const { body } = await get('/tasks?limit=500');
  const counts: Record<string, number> = {};
  for (const t of body.tasks as { status: string; correlation_id: string | null }[]) {
    if (t.correlation_id === projectStream) counts[t.status] = (counts[t.status] ?? 0) + 1;
  }
  return counts;
}

function nonZero(statuses: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(statuses).filter(([, n]) => n > 0));
}

async function progressTable() {
  const { results } = await env.DB.prepare(
    'SELECT * FROM project_progress ORDER BY project_id',
  ).all();
  return results;
}

describe('canHandle', () => {
  it('gives evolve only the Wire types a model handles, and still moves last_seq on', () => {
    const seen: string[] = [];
    const model: Reducer<BaseRow> = {
      model: 'probe',
      version: 1,
      key: 'stream_id',
      columns: ['stream_id', 'reducer_version', 'last_seq'],
      canHandle: ['task.claimed', 'artifact.*'],
      initial: (first) => ({ stream_id: first.stream_id, reducer_version: 0, last_seq: 0 }),
      evolve: (row, wire) => {
        seen.push(wire.type);
        return row;
      },
    };
    const f = new WireFactory();
    const s = 'task:probe:attempt:1';
    const wires = [
      f.wire(s, 'task.available'),
      f.wire(s, 'task.claimed'),
      f.wire(s, 'task.heartbeat'),
      f.wire(s, 'artifact.ready'),
      f.wire(s, 'artifactual'),
      f.wire(s, 'task.complete'),
    ];
    const row = foldStream(model, wires);
    expect(seen).toEqual(['task.claimed', 'artifact.ready']);
    expect(row).toMatchObject({ last_seq: 6, reducer_version: 1 });
    // A redelivered Wire is not folded twice.
    expect(applyWire(model, row, wires[1] as Wire)).toBe(row);
    expect(seen).toHaveLength(2);
  });
});

describe('project_progress, a read model across streams', () => {
  it('counts a project’s attempts by status as /v1/tasks shows them, and survives a full rebuild', async () => {
    const p = uid('pp');
    const projectStream = `project:${p}`;
    const other = `project:${uid('pq')}`;
    const agent = uid('dev');
    expect((await setCapacity(agent, 8, 8)).status).toBe(201);
    const [offered, claimed, done, blocked, lapsed, elsewhere, loose] = [
      'off',
      'clm',
      'don',
      'blk',
      'lap',
      'els',
      'lse',
    ].map((n) => uid(n)) as [string, string, string, string, string, string, string];
    for (const t of [offered, claimed, done, blocked, lapsed]) {
      expect((await offer(t, 'developer', 1, projectStream)).status).toBe(201);
    }
    expect((await offer(elsewhere, 'developer', 1, other)).status).toBe(201);
    expect((await offer(loose, 'developer')).status).toBe(201);
    expect((await claim(claimed, agent)).status).toBe(201);
    const tokenOf = async (t: string) => String((await claim(t, agent)).body.fencing_token);
    const doneToken = await tokenOf(done);
    await lifecycle(done, agent, 'task.started', doneToken);
    expect((await lifecycle(done, agent, 'task.complete', doneToken)).status).toBe(201);
    const blockedToken = await tokenOf(blocked);
    expect(
      (await lifecycle(blocked, agent, 'task.blocked', blockedToken, { reason: 'waits' })).status,
    ).toBe(201);
    // A lease that lapses: expired, and re-offered as attempt 2 in the same project.
    expect((await claim(lapsed, agent, { leaseSeconds: 1 })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1200));
    await runDurableObjectAlarm(env.STREAMS.get(env.STREAMS.idFromName(taskStream(lapsed))));
    await untilQuiet();

    const live = await progress(p);
    expect(live).toMatchObject({ project_id: p, attempts: 6 });
    expect(nonZero(live.statuses)).toEqual({
      available: 2,
      claimed: 1,
      complete: 1,
      blocked: 1,
      expired: 1,
    });
    expect(nonZero(live.statuses)).toEqual(await countedFromTasks(projectStream));
    expect((await progress(`project:${p}`)).attempts).toBe(6);
    expect((await progress(other.slice('project:'.length))).statuses.available).toBe(1);

    // Scribble on the sums and lose a part: a full rebuild from HCS makes them exact again.
    const before = await progressTable();
    await env.DB.batch([
      env.DB.prepare(`UPDATE project_progress SET attempts = 99, claimed = 7`),
      env.DB.prepare(
        `DELETE FROM read_model_parts WHERE model = 'project_progress' AND stream_id = ?1`,
      ).bind(taskStream(done)),
      env.DB.prepare(
        `INSERT INTO project_progress (project_id, attempts, pending, available, claimed, started,
           complete, blocked, released, expired, revoked) VALUES ('ghost', 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)`,
      ),
    ]);
    const lines = await runRebuild();
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await progressTable()).toEqual(before);
    expect(await progress(p)).toEqual(live);

    // Rebuilding that model alone gives the same sums.
    const only = await runRebuild({ models: ['project_progress'] });
    expect(only[0]).toMatchObject({ phase: 'start', models: ['project_progress'], full: false });
    expect(await progressTable()).toEqual(before);
  });

  it('stays exact when projection batches are redelivered, split or out of order', async () => {
    const f = new WireFactory();
    const p = uid('pr');
    const a = `task:${uid('ra')}:attempt:1`;
    const b = `task:${uid('rb')}:attempt:1`;
    const at = { correlation_id: `project:${p}` };
    const wires = [
      f.wire(a, 'task.available', { role: 'dev' }, at),
      f.wire(b, 'task.available', { role: 'dev' }, at),
      f.wire(a, 'task.claimed', { agent: 'x' }),
      f.wire(a, 'task.heartbeat', {}),
      f.wire(b, 'task.claimed', { agent: 'y' }),
      f.wire(a, 'task.complete', {}),
    ];
    const row = async () =>
      env.DB.prepare('SELECT * FROM project_progress WHERE project_id = ?1').bind(p).first();
    // Out of order: b's claim first (waits for its offer), then the rest twice over.
    await projectWires(env.DB, wires.slice(4, 5));
    expect(await row()).toBeNull();
    await projectWires(env.DB, wires.slice(0, 3));
    expect(await row()).toMatchObject({ attempts: 2, available: 0, claimed: 2 });
    await projectWires(env.DB, wires);
    await projectWires(env.DB, wires.slice(2));
    await projectWires(env.DB, [...wires].reverse());
    expect(await row()).toMatchObject({ attempts: 2, claimed: 1, complete: 1, available: 0 });
    const parts = await env.DB.prepare(
      `SELECT stream_id, last_seq FROM read_model_parts WHERE model = 'project_progress'
         AND stream_id IN (?1, ?2) ORDER BY stream_id`,
    )
      .bind(a, b)
      .all();
    expect(parts.results).toEqual(
      [
        { stream_id: a, last_seq: 4 },
        { stream_id: b, last_seq: 2 },
      ].sort((x, y) => x.stream_id.localeCompare(y.stream_id)),
    );
  });

  it('answers 404 for a project with no task, and 400 for a malformed id', async () => {
    expect((await get(`/projects/${uid('none')}/progress`)).status).toBe(404);
    expect((await get('/projects/%20bad/progress')).status).toBe(400);
  });
});

describe('cell encoding', () => {
  it('stores JSON columns as text and gives them back parsed; a missing column is named', async () => {
    await env.DB.prepare(
      `CREATE TABLE IF NOT EXISTS probe_cells (stream_id TEXT PRIMARY KEY, tags TEXT, done INTEGER,
         reducer_version INTEGER NOT NULL, last_seq INTEGER NOT NULL)`,
    ).run();
    const probe: Reducer<BaseRow> = {
      model: 'probe_cells',
      version: 1,
      key: 'stream_id',
      columns: ['stream_id', 'tags', 'done', 'reducer_version', 'last_seq'],
      json: ['tags'],
      initial: (first) => ({
        stream_id: first.stream_id,
        tags: [],
        done: false,
        reducer_version: 0,
        last_seq: 0,
      }),
      evolve: (row, wire) => ({
        ...row,
        tags: [...(row.tags as string[]), wire.type],
        done: wire.type === 'task.complete',
      }),
    };
    const f = new WireFactory();
    const s = `task:${uid('cells')}:attempt:1`;
    const row = foldStream(probe, [f.wire(s, 'task.available'), f.wire(s, 'task.complete')]);
    await env.DB.prepare(`INSERT INTO projection_meta (model, reducer_version, status)
      VALUES ('probe_cells', 1, 'ready') ON CONFLICT DO NOTHING`).run();
    await env.DB.batch(writeRows(env.DB, probe, [row as BaseRow]));
    const stored = await env.DB.prepare('SELECT tags, done FROM probe_cells WHERE stream_id = ?1')
      .bind(s)
      .first();
    expect(stored).toEqual({ tags: '["task.available","task.complete"]', done: 1 });
    const read = await selectRows(env.DB, probe, [s]).all();
    expect(rowsOf(probe, read.results)).toEqual([
      { ...row, tags: ['task.available', 'task.complete'], done: 1 },
    ]);
    const drifted = { ...probe, columns: [...probe.columns, 'owner'] };
    const again = await selectRows(env.DB, probe, [s]).all();
    expect(() => rowsOf(drifted, again.results)).toThrow(/probe_cells: column owner/);
  });
});
