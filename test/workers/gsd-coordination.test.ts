import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { as, emit, eventsOf, type Json, projectState, SEED_EVENTS, view } from './helpers/gsd';

const at = (minute: number) => `2024-01-15T10:${String(minute).padStart(2, '0')}:00Z`;

async function putConfig(project: string, config: unknown, headers: Record<string, string>) {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/config`, {
    method: 'PUT',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(config),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("the seed's orchestrator, without polling", () => {
  it('wait returns when all 3 executors completed, and not before', async () => {
    const project = uid('orch');
    const started = Date.now();
    let answeredAt = 0;
    const waiting = view(project, '?type=task:completed&plan_prefix=01-&wait=30&count=3').then(
      (answer) => {
        answeredAt = Date.now();
        return answer;
      },
    );
    const plans = ['01-01', '01-02', '01-03'];
    await Promise.all(
      plans.map((plan, i) =>
        emit(
          project,
          { type: 'task:started', agent: `exec-${i}`, plan, task: 1, timestamp: at(30) },
          `agent:exec-${i}`,
        ),
      ),
    );
    // Another phase's completion does not count.
    await emit(project, { ...SEED_EVENTS.taskCompleted, plan: '02-01' });
    let lastPostedAt = 0;
    for (const [i, plan] of plans.entries()) {
      expect(answeredAt).toBe(0);
      const posted = await emit(
        project,
        {
          type: 'task:completed',
          agent: `exec-${i}`,
          plan,
          task: 1,
          commit: `c${i}`,
          timestamp: at(45),
        },
        `agent:exec-${i}`,
      );
      expect(posted.status).toBe(201);
      lastPostedAt = Date.now();
    }
    const answer = await waiting;
    expect(answer.res.headers.get('Wirestream-Wait')).toBe('met');
    expect(eventsOf(answer).map((e) => e.plan)).toEqual(plans);
    expect(answer.body.lastEventId).toBe(7);
    expect(answeredAt).toBeGreaterThanOrEqual(lastPostedAt - 50);
    expect(answeredAt - started).toBeLessThan(10_000);
  });

  it('wait times out with what matched so far', async () => {
    const project = uid('tmo');
    await emit(project, SEED_EVENTS.taskCompleted);
    const answer = await view(project, '?type=task:completed&wait=1&count=2');
    expect(answer.res.headers.get('Wirestream-Wait')).toBe('timeout');
    expect(eventsOf(answer)).toHaveLength(1);
  });
});

describe('dependency resolution', () => {
  it('artifact:created for src/models/user.ts releases 01-02 and 01-03 once, whatever the retries', async () => {
    const project = uid('dep');
    const waits = await emit(project, [
      { type: 'plan:waiting', plan: '01-02', waitsOn: ['src/models/user.ts'], timestamp: at(20) },
      { type: 'plan:waiting', plan: '01-03', waitsOn: ['User'], timestamp: at(20) },
    ]);
    expect(waits.status).toBe(201);
    expect((await projectState(project)).plans).toMatchObject({
      '01-02': { status: 'waiting' },
      '01-03': { status: 'waiting' },
    });
    const key = { 'Idempotency-Key': uid('art') };
    // Retries of one POST (same key) and separate posts of the same artifact, all at once.
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        emit(project, SEED_EVENTS.artifactCreated, undefined, key),
      ),
      ...Array.from({ length: 3 }, () => emit(project, SEED_EVENTS.artifactCreated)),
    ]);
    expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
    const satisfied = eventsOf(await view(project, '?type=dependency:satisfied'));
    expect(satisfied).toHaveLength(1);
    const [only] = satisfied;
    expect(only).toEqual({
      type: 'dependency:satisfied',
      artifact: 'src/models/user.ts',
      requiredBy: ['01-02', '01-03'],
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      id: expect.any(Number),
    });
    // Caused by the artifact event: it is the Wire right after it, with causation_id set.
    const wires = await SELF.fetch(`https://ws.test/v1/streams/gsd:${project}/wires`, {
      headers: await as('agent:viewer'),
    });
    const list = ((await wires.json()) as { wires: Json[] }).wires;
    const verdict = list.find((w) => w.type === 'gsd.dependency.satisfied');
    const cause = list.find((w) => w.wire_id === verdict?.causation_id);
    expect(cause?.type).toBe('gsd.artifact.created');
    expect(verdict?.sender).toBe('system');
    expect(verdict?.stream_seq).toBe(Number(cause?.stream_seq) + 1);
    expect((await projectState(project)).plans).toMatchObject({
      '01-02': {
        status: 'ready',
        satisfied: { 'src/models/user.ts': { artifact: 'src/models/user.ts' } },
      },
      '01-03': { status: 'ready', satisfied: { User: { artifact: 'src/models/user.ts' } } },
    });
  });

  it('a plan that declares a wait already provided is released at once; modified provides count', async () => {
    const project = uid('late');
    await emit(project, SEED_EVENTS.artifactCreated);
    await emit(project, {
      type: 'plan:waiting',
      plan: '01-04',
      waitsOn: ['UserCreate', 'Role'],
      timestamp: at(40),
    });
    expect(eventsOf(await view(project, '?type=dependency:satisfied'))).toMatchObject([
      { artifact: 'src/models/user.ts', requiredBy: ['01-04'] },
    ]);
    expect((await projectState(project)).plans).toMatchObject({ '01-04': { waitingOn: ['Role'] } });
    await emit(project, { ...SEED_EVENTS.artifactModified, provides: ['Role'] });
    expect(eventsOf(await view(project, '?type=dependency:satisfied'))).toHaveLength(2);
    expect((await projectState(project)).plans).toMatchObject({ '01-04': { status: 'ready' } });
  });
});

describe('decisions and checkpoints', () => {
  it('decision:made feeds the decision log', async () => {
    const project = uid('dec');
    await emit(project, SEED_EVENTS.decisionMade);
    const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/decisions`, {
      headers: await as('agent:viewer'),
    });
    const body = (await res.json()) as Json;
    expect(body.decisions).toEqual([{ ...SEED_EVENTS.decisionMade, eventId: 1 }]);
  });

  it('checkpoint:reached awaits a person; the orchestrator waits on the answer', async () => {
    const project = uid('cp');
    await emit(project, SEED_EVENTS.checkpointReached);
    expect((await projectState(project)).checkpoints).toMatchObject([
      { plan: '01-03', task: 2, status: 'awaiting', awaiting: 'user approval' },
    ]);
    const waiting = view(
      project,
      '?type=checkpoint:approved,checkpoint:rejected&plan_prefix=01-03&wait=30',
    );
    const answer = {
      type: 'checkpoint:approved',
      plan: '01-03',
      task: 2,
      comment: 'looks right',
      timestamp: at(59),
    };
    const byAgent = await emit(project, answer, 'agent:gsd-executor');
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.detail).toContain('human:');
    expect((await emit(project, answer, 'human:ana')).status).toBe(201);
    const heard = await waiting;
    expect(heard.res.headers.get('Wirestream-Wait')).toBe('met');
    expect(eventsOf(heard)).toEqual([{ ...answer, id: 2 }]);
    expect((await projectState(project)).checkpoints).toMatchObject([
      { status: 'approved', answeredBy: 'human:ana', answerEventId: 2 },
    ]);
    const twice = await emit(project, { ...answer, type: 'checkpoint:rejected' }, 'human:bo');
    expect(twice.status).toBe(409);
    expect(twice.body.type).toBe('/problems/checkpoint-not-awaiting');
  });
});

describe('file claims', () => {
  it('refuses a path claimed by another agent, naming the holder', async () => {
    const project = uid('claim');
    expect((await emit(project, SEED_EVENTS.fileClaimed)).status).toBe(201);
    const rival = await emit(
      project,
      { ...SEED_EVENTS.fileClaimed, agent: 'rival' },
      'agent:rival',
    );
    expect(rival.status).toBe(409);
    expect(rival.body).toMatchObject({ holder: 'agent:gsd-executor', path: 'src/api/users.ts' });
    expect((await projectState(project)).claims).toMatchObject([
      { path: 'src/api/users.ts', holder: 'agent:gsd-executor', plan: '01-02' },
    ]);
    const notMine = await emit(
      project,
      { ...SEED_EVENTS.fileReleased, agent: 'rival' },
      'agent:rival',
    );
    expect(notMine.status).toBe(409);
    expect((await emit(project, SEED_EVENTS.fileReleased)).status).toBe(201);
    expect(
      (await emit(project, { ...SEED_EVENTS.fileClaimed, agent: 'rival' }, 'agent:rival')).status,
    ).toBe(201);
  });
});

async function workspaceClaims(project: string): Promise<Json[]> {
  const res = await SELF.fetch(`https://ws.test/v1/workspaces/${project}/claims`, {
    headers: await as('agent:viewer'),
  });
  return ((await res.json()) as { claims: Json[] }).claims;
}

describe('file claims through the surface-claim gate (seed 001)', () => {
  it('shows a GSD file claim as a workspace claim, and gives it back on release', async () => {
    const project = uid('gate');
    expect((await emit(project, SEED_EVENTS.fileClaimed)).status).toBe(201);
    expect(await workspaceClaims(project)).toMatchObject([
      { haid: 'agent:gsd-executor', surfaces: ['src/api/users.ts'], task: '01-02' },
    ]);
    expect((await emit(project, SEED_EVENTS.fileReleased)).status).toBe(201);
    // Delivered from the effect outbox before the 201 (the alarm retries it if not).
    expect(await workspaceClaims(project)).toEqual([]);
  });

  it('refuses file:claimed on a path another agent holds through /v1/workspaces, naming it', async () => {
    const project = uid('gate');
    const res = await SELF.fetch(`https://ws.test/v1/workspaces/${project}/claims`, {
      method: 'POST',
      headers: {
        ...(await as('agent:mcp-dev', ['append', 'read', 'claim'])),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ surfaces: ['src/api/**'], task: 'refactor api' }),
    });
    expect(res.status).toBe(201);
    const refused = await emit(project, SEED_EVENTS.fileClaimed);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: '/problems/file-claimed', holder: 'agent:mcp-dev' });
    expect(refused.body.detail).toContain('agent:mcp-dev');
    expect((await view(project)).body.lastEventId).toBe(0);
  });

  it('lets one of many racing agents claim a path', async () => {
    const project = uid('gate');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        emit(project, { ...SEED_EVENTS.fileClaimed, agent: `racer-${i}` }, `agent:racer-${i}`),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
    const [claim] = (await projectState(project)).claims as Json[];
    expect(await workspaceClaims(project)).toMatchObject([{ haid: claim?.holder }]);
  });
});

describe('handlers', () => {
  it("accepts the seed's event_handlers verbatim, from a coordinator only, and runs the built-ins", async () => {
    const project = uid('cfg');
    const config = {
      event_handlers: {
        'task:completed': ['builtin:blackboard-sync', 'custom:slack-notify'],
        'task:failed': ['builtin:error-handler', 'custom:pagerduty-alert'],
      },
    };
    const denied = await putConfig(project, config, await as('agent:gsd-executor'));
    expect(denied.status).toBe(403);
    const put = await putConfig(project, config, await coordinatorHeaders('coordinator:orch'));
    expect(put.status).toBe(200);
    expect(put.body.event_handlers).toEqual(config.event_handlers);
    const bad = await putConfig(
      project,
      { event_handlers: { 'task:completed': ['slack-notify'] } },
      await coordinatorHeaders('coordinator:orch'),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/^event_handlers\.task:completed\.0: .*builtin/);
    await emit(project, [SEED_EVENTS.taskCompleted, SEED_EVENTS.taskFailed]);
    const state = await projectState(project);
    expect(state.sharedContext).toMatchObject({
      '01-02': { '1': { commit: 'abc1234', agent: 'agent:gsd-executor' } },
    });
    expect(state.alerts).toMatchObject([{ error: 'Test verification failed', plan: '01-02' }]);
    expect(state.config).toMatchObject({
      event_handlers: config.event_handlers,
      retentionPolicy: '24h',
    });
  });

  it('retention governs the view only', async () => {
    const project = uid('ret');
    await emit(project, SEED_EVENTS.taskStarted);
    const put = await putConfig(
      project,
      { retentionPolicy: '1m' },
      await coordinatorHeaders('coordinator:orch'),
    );
    expect(put.body.retentionPolicy).toBe('1m');
    expect((await view(project)).body.retentionPolicy).toBe('1m');
  });
});
