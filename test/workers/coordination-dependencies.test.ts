import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import {
  claim,
  coordination,
  lifecycle,
  offer,
  PLANNER,
  send,
  taskStream,
  uid,
  wiresOf,
} from './helpers/coordination';

async function plan(project: string, tasks: [string, string][]): Promise<void> {
  for (const [task, role] of tasks) {
    expect((await send(project, 'task.created', PLANNER, { task_id: task, role })).status).toBe(
      201,
    );
  }
}

function depend(project: string, down: string, up: string, on: string, name?: string) {
  return send(project, 'dependency.created', PLANNER, {
    downstream_task_id: down,
    upstream_task_id: up,
    release_on: name === undefined ? { type: on } : { type: on, name },
  });
}

describe('early dependency release', () => {
  it('releases R2 and R3 when R1 emits contract.ready(auth_expert_id_mapping), before R1 completes', async () => {
    const project = `project:${uid('kv')}`;
    const [r1, r2, r3] = [uid('R1-'), uid('R2-'), uid('R3-')];
    await plan(project, [
      [r1, 'developer'],
      [r2, 'api'],
      [r3, 'middleware'],
    ]);
    expect((await depend(project, r2, r1, 'contract.ready', 'auth_expert_id_mapping')).status).toBe(
      201,
    );
    expect((await depend(project, r3, r1, 'contract.ready', 'auth_expert_id_mapping')).status).toBe(
      201,
    );

    expect((await offer(r1, 'developer', 1, project)).status).toBe(201);
    const won = await claim(r1, 'quinn-03');
    const token = String(won.body.fencing_token);
    expect(
      (await lifecycle(r1, 'quinn-03', 'task.started', token, {}, 1, { correlation_id: project }))
        .status,
    ).toBe(201);
    // Nothing is released by work that is not the named contract.
    expect(await wiresOf(taskStream(r2))).toEqual([]);

    const ready = await lifecycle(
      r1,
      'quinn-03',
      'contract.ready',
      token,
      { contract: 'auth_expert_id_mapping' },
      1,
      { correlation_id: project },
    );
    expect(ready.status).toBe(201);

    for (const [task, role] of [
      [r2, 'api'],
      [r3, 'middleware'],
    ] as const) {
      const offered = await wiresOf(taskStream(task));
      expect(offered).toHaveLength(1);
      expect(offered[0]).toMatchObject({
        type: 'task.available',
        sender: 'system',
        causation_id: ready.body.wire_id,
        correlation_id: project,
        payload: { task_id: task, role, attempt: 1 },
      });
    }
    // R1 is still being worked on: the release came first.
    expect(await coordination(taskStream(r1))).toMatchObject({ status: 'started' });
    // The released tasks reached their role feeds.
    const apiFeed = await SELF.fetch('https://ws.test/v1/roles/api/wires?after=0&limit=1000', {
      headers: await authHeaders('agent:watcher'),
    });
    const feed = (await apiFeed.json()) as {
      wires: { payload: { task_id: string; stream_id: string } }[];
    };
    expect(feed.wires.map((w) => w.payload.task_id)).toContain(r2);

    // Completing R1 later releases nothing twice.
    expect(
      (await lifecycle(r1, 'quinn-03', 'task.complete', token, {}, 1, { correlation_id: project }))
        .status,
    ).toBe(201);
    expect(await wiresOf(taskStream(r2))).toHaveLength(1);
    const graph = (await coordination(project)) as {
      tasks: Record<string, { released: boolean; releasedBy: string }>;
    };
    expect(graph.tasks[r2]).toMatchObject({ released: true, releasedBy: ready.body.wire_id });
    expect(graph.tasks[r1]).toMatchObject({ released: false });
    const signals = (await wiresOf(project)).filter((w) => w.type === 'upstream.ready');
    expect(signals.map((w) => w.payload.signal)).toEqual(['contract.ready', 'task.complete']);
  });

  it('holds a task behind a gate until gate.passed, even after its dependency is met', async () => {
    const project = `project:${uid('gate')}`;
    const [build, deploy] = [uid('build-'), uid('deploy-')];
    await plan(project, [
      [build, 'developer'],
      [deploy, 'ops'],
    ]);
    await depend(project, deploy, build, 'task.complete');
    expect(
      (
        await send(project, 'gate.opened', PLANNER, {
          gate_id: 'security-review',
          task_ids: [deploy],
        })
      ).status,
    ).toBe(201);

    await offer(build, 'developer', 1, project);
    const won = await claim(build, 'b1');
    await lifecycle(build, 'b1', 'task.complete', String(won.body.fencing_token), {}, 1, {
      correlation_id: project,
    });
    expect(await wiresOf(taskStream(deploy))).toEqual([]);

    const passed = await send(project, 'gate.passed', PLANNER, { gate_id: 'security-review' });
    expect(passed.status).toBe(201);
    const offered = await wiresOf(taskStream(deploy));
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({
      type: 'task.available',
      causation_id: passed.body.wire_id,
      payload: { role: 'ops' },
    });

    const again = await send(project, 'gate.passed', PLANNER, { gate_id: 'security-review' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('gate "security-review" has already passed');
  });

  it('refuses dependencies on unknown tasks and named releases without a name', async () => {
    const project = `project:${uid('bad')}`;
    await plan(project, [[uid('a'), 'developer']]);
    const unknown = await depend(project, 'nope', 'nada', 'task.complete');
    expect(unknown.status).toBe(409);
    expect(unknown.body.detail).toContain('record task.created first');
    const x = uid('x');
    const y = uid('y');
    await plan(project, [
      [x, 'developer'],
      [y, 'developer'],
    ]);
    const unnamed = await depend(project, x, y, 'artifact.ready');
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.errors).toEqual([
      {
        path: 'payload.release_on.name',
        message: 'required for contract.ready and artifact.ready',
      },
    ]);
  });
});

describe('task and gate ids named like Object.prototype members', () => {
  it('are ids like any other: created once, unknown until then', async () => {
    const project = `project:${uid('proto')}`;
    // A fresh project has no task "constructor" and no gate "toString".
    await plan(project, [['constructor', 'developer']]);
    const again = await send(project, 'task.created', PLANNER, {
      task_id: 'constructor',
      role: 'developer',
    });
    expect(again.status).toBe(409);
    const opened = await send(project, 'gate.opened', PLANNER, {
      gate_id: 'toString',
      task_ids: ['constructor'],
    });
    expect(opened.status).toBe(201);
    const unknownTask = await send(project, 'gate.opened', PLANNER, {
      gate_id: 'g2',
      task_ids: ['valueOf'],
    });
    expect([unknownTask.status, (unknownTask.body as { detail?: string }).detail]).toEqual([
      409,
      'gate "g2" holds unknown tasks: valueOf',
    ]);
    const neverOpened = await send(project, 'gate.passed', PLANNER, { gate_id: 'hasOwnProperty' });
    expect([neverOpened.status, (neverOpened.body as { detail?: string }).detail]).toEqual([
      409,
      'gate "hasOwnProperty" was never opened',
    ]);
  });
});
