import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { emit, eventsOf, type Json, SEED_EVENTS, view } from './helpers/gsd';

/** Who may post each example: its agent, or a coordinator for what only one may post. */
function senderOf(event: Json): string {
  if (event.type === 'dependency:satisfied') return 'coordinator:orchestrator';
  return typeof event.agent === 'string' ? `agent:${event.agent}` : 'agent:gsd-executor';
}

describe('GSD events at /v1/projects/{project_id}/events', () => {
  it('round-trips every example event of the seed, with gap-free ids', async () => {
    const project = uid('rt');
    const examples = Object.values(SEED_EVENTS) as Json[];
    for (const event of examples) {
      const sub = senderOf(event);
      const posted = sub.startsWith('coordinator:')
        ? await emitAsCoordinator(project, event)
        : await emit(project, event, sub);
      expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    }
    const read = await view(project);
    expect(read.status).toBe(200);
    expect(read.body.lastEventId).toBe(examples.length);
    expect(read.body.retentionPolicy).toBe('24h');
    const expected = examples.map((e, i) => ('id' in e ? e : { ...e, id: i + 1 }));
    expect(eventsOf(read)).toEqual(expected);
  });

  it('stores an array all or nothing, and names the refused event', async () => {
    const project = uid('batch');
    const ok = await emit(project, [SEED_EVENTS.taskStarted, SEED_EVENTS.taskCompleted]);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ events: [{ id: 1 }, { id: 2 }], lastEventId: 2 });
    const bad = await emit(project, [
      SEED_EVENTS.taskStarted,
      { ...SEED_EVENTS.taskCompleted, plan: 12 },
    ]);
    expect(bad.status).toBe(422);
    expect(bad.res.headers.get('Content-Type')).toContain('application/problem+json');
    expect(bad.body.detail).toMatch(/^events\[1\]: .*plan/);
    expect(bad.body.errors).toEqual([{ path: '[1].plan', message: expect.any(String) }]);
    expect((await view(project)).body.lastEventId).toBe(2);
  });

  it('refuses malformed events with a precise 4xx and stores nothing', async () => {
    const project = uid('bad');
    const cases: [unknown, number, RegExp][] = [
      [{ plan: '01-02', timestamp: '2024-01-15T10:30:00Z' }, 422, /^type: /],
      [{ type: 'taskstarted', timestamp: '2024-01-15T10:30:00Z' }, 422, /^type: .*colon/],
      [{ ...SEED_EVENTS.taskStarted, task: true }, 422, /^task: /],
      [{ ...SEED_EVENTS.artifactCreated, provides: 'User' }, 422, /^provides: /],
      [{ ...SEED_EVENTS.taskStarted, timestamp: 'yesterday' }, 422, /^timestamp: /],
      [{ ...SEED_EVENTS.taskStarted, agent: 'someone-else' }, 403, /agent:someone-else/],
      [[], 422, /1 to 100 events/],
      [SEED_EVENTS.dependencySatisfied, 403, /coordinator/],
    ];
    for (const [body, status, detail] of cases) {
      const answer = await emit(project, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(String(answer.body.detail)).toMatch(detail);
    }
    expect((await view(project)).body.lastEventId).toBe(0);
  });

  it('accepts unknown colon types with any object body, as sent', async () => {
    const project = uid('unk');
    const event = {
      type: 'research:note',
      topic: 'edge runtimes',
      nested: { ok: [1, 2, { deep: null }] },
      timestamp: '2024-01-15T10:30:00.123+02:00',
    };
    expect((await emit(project, event)).status).toBe(201);
    expect(eventsOf(await view(project))).toEqual([{ ...event, id: 1 }]);
  });

  it('attributes an event without agent to the token subject; agent must be the subject', async () => {
    const project = uid('who');
    const { agent: _a, ...anonymous } = SEED_EVENTS.taskStarted;
    expect((await emit(project, anonymous, 'agent:quinn')).status).toBe(201);
    const refused = await emit(project, SEED_EVENTS.taskStarted, 'agent:quinn');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('agent:gsd-executor');
    expect(eventsOf(await view(project))).toEqual([{ ...anonymous, id: 1 }]);
  });

  it('keeps lastEventId gap-free under 50 concurrent emitters', async () => {
    const project = uid('race');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        emit(
          project,
          { ...SEED_EVENTS.taskStarted, agent: `exec-${i}`, task: i },
          `agent:exec-${i}`,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    const ids = answers
      .map((a) => (a.body.events as { id: number }[])[0]?.id)
      .sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const read = await view(project);
    expect(read.body.lastEventId).toBe(50);
    expect(eventsOf(read).map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('filters by type, plan prefix and after', async () => {
    const project = uid('filter');
    await emit(project, [
      { ...SEED_EVENTS.taskCompleted, plan: '01-01' },
      { ...SEED_EVENTS.taskCompleted, plan: '02-01' },
      SEED_EVENTS.taskStarted,
      { ...SEED_EVENTS.taskCompleted, plan: '01-02' },
    ]);
    const byType = await view(project, '?type=task:completed&plan_prefix=01-');
    expect(eventsOf(byType).map((e) => [e.id, e.plan])).toEqual([
      [1, '01-01'],
      [4, '01-02'],
    ]);
    expect(byType.body.lastEventId).toBe(4);
    const after = await view(project, '?after=2');
    expect(eventsOf(after).map((e) => e.id)).toEqual([3, 4]);
    const bad = await view(project, '?type=completed');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('type');
  });

  it('replays a retry with the same Idempotency-Key instead of storing it again', async () => {
    const project = uid('idem');
    const key = { 'Idempotency-Key': uid('k') };
    const first = await emit(project, SEED_EVENTS.taskStarted, undefined, key);
    const again = await emit(project, SEED_EVENTS.taskStarted, undefined, key);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.events).toEqual(first.body.events);
    expect((await view(project)).body.lastEventId).toBe(1);
  });

  it('refuses a reused Idempotency-Key with other events, or the same ones plus more, and stores none of them', async () => {
    const project = uid('idem-other');
    const key = { 'Idempotency-Key': uid('k') };
    expect((await emit(project, SEED_EVENTS.taskStarted, undefined, key)).status).toBe(201);
    const other = await emit(project, { ...SEED_EVENTS.taskStarted, task: 2 }, undefined, key);
    const longer = await emit(
      project,
      [SEED_EVENTS.taskStarted, { ...SEED_EVENTS.taskStarted, task: 3 }],
      undefined,
      key,
    );
    for (const refused of [other, longer]) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.detail).toMatch(/Idempotency-Key .* was used for a different request/);
    }
    expect((await view(project)).body.lastEventId).toBe(1);
    // The first request itself is still a replay.
    expect((await emit(project, SEED_EVENTS.taskStarted, undefined, key)).status).toBe(200);
  });

  it('answers odd bodies with a 4xx, never a 5xx', async () => {
    const project = uid('odd');
    const ts = '2024-01-15T10:30:00Z';
    const bodies = [
      'null',
      '"x"',
      '7',
      '[null]',
      '[[]]',
      '{}',
      `{"type":"a:b","timestamp":"${ts}","n":1e400}`,
      `{"type":"a:b","timestamp":"${ts}","s":"\\ud800"}`,
      `{"type":"a:b","timestamp":"${ts}","__proto__":{"x":1}}`,
      `{"type":"task:completed","timestamp":"${ts}","plan":"01","task":1,"__proto__":{"x":1}}`,
      `{"type":"a:b","timestamp":"${ts}","$envelope":{"type":"dependency:satisfied"}}`,
      `{"type":"a:b","timestamp":"${ts}","$envelope":7}`,
      `{"type":"task:started","timestamp":"${ts}","plan":"01","task":1e20}`,
      `{"type":"a:b","timestamp":"2024-02-30T10:30:00Z"}`,
      `{"type":"a:b","timestamp":"${ts}","agent":"agent:gsd-executor"}`,
    ];
    for (const [i, body] of bodies.entries()) {
      const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
        method: 'POST',
        headers: {
          ...(await coordinatorHeaders('agent:gsd-executor')),
          'Content-Type': 'application/json',
          'Idempotency-Key': `odd-${i}`,
        },
        body,
      });
      expect(res.status, `${body} -> ${await res.text()}`).toBeLessThan(500);
    }
  });
});

async function emitAsCoordinator(project: string, event: Json) {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
    method: 'POST',
    headers: {
      ...(await coordinatorHeaders('coordinator:orchestrator')),
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(event),
  });
  return { status: res.status, body: (await res.json()) as Json, res };
}
