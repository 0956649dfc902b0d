import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { as, emit, eventsOf, type Json, SEED_EVENTS, view } from './helpers/gsd';

/**
 * Plans, paths and provided names are chosen by users; names that
 * Object.prototype also carries ("__proto__", "constructor", "toString") are
 * names like any other.
 */

const at = (minute: number) => `2024-01-15T10:${String(minute).padStart(2, '0')}:00Z`;

async function read(project: string, tail = ''): Promise<{ status: number; body: Json }> {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}${tail}`, {
    headers: await as('agent:viewer'),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

function own(record: unknown, key: string): unknown {
  expect(Object.hasOwn(record as object, key), `has its own "${key}"`).toBe(true);
  return (record as Json)[key];
}

describe('plans and paths named like Object.prototype members', () => {
  it('task:completed for plan "__proto__" is kept, and the project, its events and decisions stay readable', async () => {
    const project = uid('proto');
    expect((await emit(project, SEED_EVENTS.decisionMade)).status).toBe(201);
    const posted = await emit(project, { ...SEED_EVENTS.taskCompleted, plan: '__proto__' });
    expect(posted.status).toBe(201);

    const state = await read(project);
    expect(state.status).toBe(200);
    const tasks = own(state.body.sharedContext, '__proto__');
    expect(own(tasks, '1')).toMatchObject({ commit: 'abc1234', agent: 'agent:gsd-executor' });

    const events = await view(project);
    expect(events.status).toBe(200);
    expect(eventsOf(events).map((e) => e.plan)).toEqual([undefined, '__proto__']);

    const decisions = await read(project, '/decisions');
    expect(decisions.status).toBe(200);
    expect(decisions.body.decisions).toMatchObject([{ id: 'dec-001' }]);
  });

  it('plans "constructor" and "toString" get their own shared context, beside "__proto__"', async () => {
    const project = uid('ctx');
    for (const plan of ['__proto__', 'constructor', 'toString']) {
      for (const task of [1, 2]) {
        const posted = await emit(project, { ...SEED_EVENTS.taskCompleted, plan, task });
        expect(posted.status).toBe(201);
      }
    }
    const state = await read(project);
    expect(state.status).toBe(200);
    for (const plan of ['__proto__', 'constructor', 'toString']) {
      const tasks = own(state.body.sharedContext, plan);
      expect(Object.keys(tasks as Json)).toEqual(['1', '2']);
    }
  });

  it('plan "constructor" waiting on "toString" is released by the artifact that provides it', async () => {
    const project = uid('ctor');
    const waits = await emit(project, {
      type: 'plan:waiting',
      plan: 'constructor',
      waitsOn: ['toString'],
      timestamp: at(20),
    });
    expect(waits.status).toBe(201);
    const before = await read(project);
    expect(before.status).toBe(200);
    expect(own(before.body.plans, 'constructor')).toMatchObject({
      waitingOn: ['toString'],
      status: 'waiting',
    });

    const created = await emit(project, {
      ...SEED_EVENTS.artifactCreated,
      path: 'src/proto.ts',
      provides: ['toString'],
    });
    expect(created.status).toBe(201);
    const released = eventsOf(await view(project, '?type=dependency:satisfied'));
    expect(released).toMatchObject([{ artifact: 'src/proto.ts', requiredBy: ['constructor'] }]);
    const after = await read(project);
    expect(own(after.body.plans, 'constructor')).toMatchObject({ waitingOn: [], status: 'ready' });
  });

  it('a plan waiting on "constructor" stays waiting until something provides it', async () => {
    const project = uid('waitctor');
    const waits = await emit(project, {
      type: 'plan:waiting',
      plan: '01-02',
      waitsOn: ['constructor', '__proto__'],
      timestamp: at(20),
    });
    expect(waits.status).toBe(201);
    expect(eventsOf(await view(project, '?type=dependency:satisfied'))).toEqual([]);
    const state = await read(project);
    expect(own(state.body.plans, '01-02')).toMatchObject({
      waitingOn: ['constructor', '__proto__'],
      status: 'waiting',
    });

    await emit(project, {
      ...SEED_EVENTS.artifactCreated,
      path: '__proto__',
      provides: ['constructor'],
    });
    const released = eventsOf(await view(project, '?type=dependency:satisfied'));
    expect(released).toMatchObject([{ artifact: '__proto__', requiredBy: ['01-02'] }]);
    const after = await read(project);
    expect(own(after.body.plans, '01-02')).toMatchObject({ waitingOn: [], status: 'ready' });
  });

  it('files "__proto__" and "constructor" are claimed, shown and released like any path', async () => {
    const project = uid('claim');
    for (const path of ['__proto__', 'constructor']) {
      const claimed = await emit(project, { ...SEED_EVENTS.fileClaimed, path });
      expect(claimed.status).toBe(201);
    }
    const held = await read(project);
    expect(held.status).toBe(200);
    expect(held.body.claims).toMatchObject([
      { path: '__proto__', holder: 'agent:gsd-executor', plan: '01-02' },
      { path: 'constructor', holder: 'agent:gsd-executor', plan: '01-02' },
    ]);

    const { agent: _a, ...anyone } = SEED_EVENTS.fileClaimed;
    const taken = await emit(project, { ...anyone, path: '__proto__' }, 'agent:other');
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain('agent:gsd-executor');

    for (const path of ['__proto__', 'constructor']) {
      const released = await emit(project, { ...SEED_EVENTS.fileReleased, path });
      expect(released.status).toBe(201);
    }
    const free = await read(project);
    expect(free.status).toBe(200);
    expect(free.body.claims).toEqual([]);
  });

  it('releasing an unclaimed "constructor" is refused as for any unclaimed path', async () => {
    const project = uid('unclaimed');
    const plain = await emit(project, { ...SEED_EVENTS.fileReleased, path: 'src/nobody.ts' });
    expect(plain.status).toBe(409);
    for (const path of ['constructor', '__proto__', 'toString']) {
      const refused = await emit(project, { ...SEED_EVENTS.fileReleased, path });
      expect(refused.status).toBe(plain.status);
      expect(refused.body.type).toBe(plain.body.type);
      expect(refused.body.detail).toBe(`path "${path}" is not claimed`);
    }
  });
});
