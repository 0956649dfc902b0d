import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectWires } from '../../src/projection';
import { authHeaders } from './helpers/auth';
import { resetReadModels, WireFactory } from './helpers/projection-fixtures';

const base = 'https://ws.test/v1';

async function get(path: string, sub = 'human:reader', more = {}) {
  const res = await SELF.fetch(`${base}${path}`, {
    headers: await authHeaders(sub, ['read'], more),
  });
  const body = (await res.json()) as Record<string, unknown> & { [k: string]: unknown };
  return { res, body };
}

const lease = '2026-05-01T16:30:00Z';

beforeAll(async () => {
  await resetReadModels(env.DB);
  const f = new WireFactory();
  const P = 'project:kv';
  const created = f.wire(P, 'project.created', { name: 'kv' }, { correlation_id: P });
  const wires = [created];
  for (const [task, role, agent] of [
    ['R1', 'developer', 'quinn-01'],
    ['R2', 'developer', 'quinn-02'],
    ['R3', 'reviewer', null],
  ] as const) {
    const s = `task:${task}:attempt:1`;
    const offer = f.wire(
      s,
      'task.available',
      { task_id: task, role },
      {
        correlation_id: P,
        causation_id: created.wire_id,
      },
    );
    wires.push(offer);
    if (agent) {
      wires.push(
        f.wire(
          s,
          'task.claimed',
          { task_id: task, agent, role, lease_expires_at: lease },
          { correlation_id: P, causation_id: offer.wire_id, sender: `agent:${agent}` },
        ),
      );
    }
  }
  wires.push(
    f.wire('task:R1:attempt:1', 'task.complete', { task_id: 'R1' }, { sender: 'agent:quinn-01' }),
    f.wire('task:R1:attempt:2', 'task.available', { task_id: 'R1', role: 'developer' }),
    f.wire('agent:quinn-01', 'agent.started', { role: 'developer' }, { sender: 'agent:quinn-01' }),
    f.wire('agent:quinn-02', 'agent.started', { role: 'developer' }, { sender: 'agent:quinn-02' }),
  );
  await projectWires(env.DB, wires);
});

describe('GET /v1/tasks', () => {
  it('lists every attempt with the watermark header', async () => {
    const { res, body } = await get('/tasks');
    expect(res.status).toBe(200);
    expect(res.headers.get('Wirestream-Watermark')).toBe('10');
    expect(res.headers.get('Wirestream-Watermark-Received-At')).toMatch(/^2026-05-01T/);
    const tasks = body.tasks as { task_id: string; attempt: number }[];
    expect(tasks.map((t) => `${t.task_id}#${t.attempt}`)).toEqual(['R1#1', 'R1#2', 'R2#1', 'R3#1']);
  });

  it('filters by status, role and claimed_by', async () => {
    const claimed = await get('/tasks?status=claimed');
    expect((claimed.body.tasks as { task_id: string }[]).map((t) => t.task_id)).toEqual(['R2']);
    const reviewers = await get('/tasks?role=reviewer');
    expect((reviewers.body.tasks as { task_id: string }[]).map((t) => t.task_id)).toEqual(['R3']);
    const mine = await get('/tasks?claimed_by=quinn-01');
    expect(mine.body.tasks).toMatchObject([{ task_id: 'R1', attempt: 1, status: 'complete' }]);
  });

  it('pages with an opaque cursor until next_cursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Record<string, unknown> } = await get(
        `/tasks?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const t of page.body.tasks as { task_id: string; attempt: number }[]) {
        seen.push(`${t.task_id}#${t.attempt}`);
      }
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(['R1#1', 'R1#2', 'R2#1', 'R3#1']);
  });

  it('answers a misspelt or malformed filter with a 400 problem naming it', async () => {
    const typo = await get('/tasks?staus=claimed');
    expect(typo.res.status).toBe(400);
    expect(typo.res.headers.get('content-type')).toBe('application/problem+json');
    expect(typo.body.type).toBe('/problems/invalid-query');
    expect(typo.body.detail).toContain('staus');
    const limit = await get('/tasks?limit=0');
    expect(limit.res.status).toBe(400);
    expect(limit.body.errors).toEqual([{ path: 'limit', message: 'must be at least 1' }]);
    const cursor = await get('/tasks?cursor=not-ours');
    expect(cursor.res.status).toBe(400);
    // A status no task can have is a mistake, not an empty list.
    const status = await get('/tasks?status=nope');
    expect(status.res.status).toBe(400);
    expect(status.body.errors).toEqual([
      {
        path: 'status',
        message:
          'Invalid option: expected one of "pending"|"available"|"claimed"|"started"|"blocked"|"complete"|"released"|"expired"|"revoked"',
      },
    ]);
  });

  it('shows every attempt of one task, current last', async () => {
    const { res, body } = await get('/tasks/R1');
    expect(res.status).toBe(200);
    expect(body.attempts).toMatchObject([
      { attempt: 1, status: 'complete' },
      { attempt: 2, status: 'available' },
    ]);
    expect(body.current).toMatchObject({ attempt: 2 });
    const missing = await get('/tasks/NOPE');
    expect(missing.res.status).toBe(404);
  });

  it('hides streams outside the token prefixes', async () => {
    const { body } = await get('/tasks', 'human:scoped', { streams: ['task:R2:'] });
    expect((body.tasks as { task_id: string }[]).map((t) => t.task_id)).toEqual(['R2']);
    // Prefixes are case-sensitive here as on every other route: task:r2: is not task:R2:.
    const lower = await get('/tasks', 'human:scoped', { streams: ['task:r2:'] });
    expect(lower.body.tasks).toEqual([]);
  });

  it('does not tell a prefix-limited reader whether a Wire of another stream exists (?wait_for=)', async () => {
    const row = await env.DB.prepare(
      "SELECT wire_id FROM wire_events WHERE stream_id = 'task:R1:attempt:1' LIMIT 1",
    ).first<{ wire_id: string }>();
    const q = `/tasks?wait_for=${row?.wire_id}&wait_ms=0`;
    expect((await get(q)).res.headers.get('wirestream-wait-for')).toBe('visible');
    const scoped = await get(q, 'human:scoped', { streams: ['task:R2:'] });
    expect(scoped.res.headers.get('wirestream-wait-for')).toBe('timeout');
  });
});

describe('GET /v1/agents', () => {
  it('lists agents by role and reports staleness', async () => {
    const { body } = await get('/agents?role=developer');
    expect(body.agents).toMatchObject([
      { agent_id: 'quinn-01', status: 'running', stale: true },
      { agent_id: 'quinn-02', status: 'running', stale: true },
    ]);
    const one = await get('/agents/agent:quinn-02');
    expect(one.body).toMatchObject({ agent_id: 'quinn-02', role: 'developer' });
    expect((await get('/agents/ghost')).res.status).toBe(404);
    expect((await get('/agents?status=dancing')).res.status).toBe(400);
  });
});

describe('GET /v1/streams', () => {
  it('filters by type, status and correlation', async () => {
    const tasks = await get('/streams?type=task&status=available');
    expect((tasks.body.streams as { stream_id: string }[]).map((s) => s.stream_id)).toEqual([
      'task:R1:attempt:2',
      'task:R3:attempt:1',
    ]);
    const project = await get('/streams?correlation_id=project:kv&type=project');
    expect(project.body.streams).toMatchObject([
      { stream_id: 'project:kv', status: 'active', state: { counts: { 'project.created': 1 } } },
    ]);
  });
});

describe('GET /v1/wires', () => {
  it('filters by correlation, causation, type, sender, stream and time', async () => {
    const byType = await get('/wires?type=task.claimed');
    expect((byType.body.wires as unknown[]).length).toBe(2);
    const bySender = await get('/wires?sender=agent:quinn-01&type=task.complete');
    expect(bySender.body.wires).toMatchObject([{ stream_id: 'task:R1:attempt:1', stream_seq: 3 }]);
    const byStream = await get('/wires?stream_id=task:R2:attempt:1');
    expect((byStream.body.wires as unknown[]).length).toBe(2);
    const correlated = await get('/wires?correlation_id=project:kv');
    expect((correlated.body.wires as unknown[]).length).toBe(6);
    const first = (correlated.body.wires as { wire_id: string }[])[0]?.wire_id ?? '';
    const caused = await get(`/wires?causation_id=${first}`);
    expect((caused.body.wires as unknown[]).length).toBe(3);
    const window = await get('/wires?since=2026-05-01T16:00:02Z&until=2026-05-01T18:00:04%2B02:00');
    expect((window.body.wires as { received_at: string }[]).map((w) => w.received_at)).toEqual([
      '2026-05-01T16:00:02.000Z',
      '2026-05-01T16:00:03.000Z',
    ]);
    const bad = await get('/wires?since=yesterday');
    expect(bad.res.status).toBe(400);
    expect(bad.body.errors).toMatchObject([{ path: 'since' }]);
    expect((await get('/wires?stream_id=nope')).res.status).toBe(400);
  });

  it('serves one Wire with its causes and consequences', async () => {
    const claim = await get('/wires?type=task.claimed&stream_id=task:R2:attempt:1');
    const id = (claim.body.wires as { wire_id: string }[])[0]?.wire_id ?? '';
    const { body } = await get(`/wires/${id}`);
    expect(body.wire).toMatchObject({
      wire_id: id,
      type: 'task.claimed',
      payload: { agent: 'quinn-02' },
    });
    expect(
      (body.causes as { type: string; depth: number }[]).map((w) => [w.depth, w.type]),
    ).toEqual([
      [1, 'task.available'],
      [2, 'project.created'],
    ]);
    const root = (body.causes as { wire_id: string }[])[1]?.wire_id ?? '';
    const down = await get(`/wires/${root}`);
    expect((down.body.consequences as { depth: number }[]).map((w) => w.depth)).toEqual([
      1, 1, 1, 2, 2,
    ]);
    expect((await get('/wires/wire_missing')).res.status).toBe(404);
  });

  it('ends the causes a prefix-limited reader sees at the first Wire it may not see, told as unresolved', async () => {
    // note:… ← secret:… ← note:…, the first caused by a Wire never projected.
    const f = new WireFactory();
    const a = f.wire('note:leak-a', 'note.made', {}, { wire_id: 'leak_a', causation_id: 'ghost' });
    const b = f.wire(
      'secret:leak-b',
      'note.made',
      {},
      { wire_id: 'leak_b', causation_id: 'leak_a' },
    );
    const c = f.wire('note:leak-c', 'note.made', {}, { wire_id: 'leak_c', causation_id: 'leak_b' });
    await projectWires(env.DB, [a, b, c]);
    const all = await get('/wires/leak_c');
    expect((all.body.causes as { wire_id: string }[]).map((w) => w.wire_id)).toEqual([
      'leak_b',
      'leak_a',
    ]);
    expect(all.body.unresolved_cause).toBe('ghost');
    // The hidden cause reads as one not projected: its id is already in
    // leak_c's causation_id, and whether it exists is not told.
    const scoped = await get('/wires/leak_c', 'human:scoped', { streams: ['note:'] });
    expect(scoped.body.causes).toEqual([]);
    expect(scoped.body.unresolved_cause).toBe('leak_b');
    const guess = f.wire(
      'note:leak-d',
      'note.made',
      {},
      { wire_id: 'leak_d', causation_id: 'nope' },
    );
    await projectWires(env.DB, [guess]);
    const unknown = await get('/wires/leak_d', 'human:scoped', { streams: ['note:'] });
    expect(unknown.body.unresolved_cause).toBe('nope');
  });

  it('lists only the consequences a prefix-limited reader reaches through Wires it may see', async () => {
    // note:down-a → secret:down-b → note:down-c, and note:down-a → note:down-d.
    const f = new WireFactory();
    const a = f.wire('note:down-a', 'note.made', {}, { wire_id: 'down_a' });
    const b = f.wire(
      'secret:down-b',
      'note.made',
      {},
      { wire_id: 'down_b', causation_id: 'down_a' },
    );
    const c = f.wire('note:down-c', 'note.made', {}, { wire_id: 'down_c', causation_id: 'down_b' });
    const d = f.wire('note:down-d', 'note.made', {}, { wire_id: 'down_d', causation_id: 'down_a' });
    await projectWires(env.DB, [a, b, c, d]);
    const ids = (body: Record<string, unknown>) =>
      (body.consequences as { wire_id: string; depth: number }[]).map((w) => [w.depth, w.wire_id]);
    const all = await get('/wires/down_a');
    expect(ids(all.body)).toEqual([
      [1, 'down_b'],
      [1, 'down_d'],
      [2, 'down_c'],
    ]);
    const scoped = await get('/wires/down_a', 'human:scoped', { streams: ['note:'] });
    expect(ids(scoped.body)).toEqual([[1, 'down_d']]);
    expect(scoped.body.consequences_truncated).toBe(false);
  });
});
