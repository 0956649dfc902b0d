import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { CheckingDecider } from '../../src/modules/coordination/config';
import { configOf } from '../../src/modules/coordination/config';
import { agentDecider } from '../../src/modules/coordination/kinds/agent-decider';
import { agentView } from '../../src/modules/coordination/kinds/agent-state';
import { projectDecider } from '../../src/modules/coordination/kinds/project-decider';
import { taskDecider } from '../../src/modules/coordination/kinds/task-decider';
import type { Wire } from '../../src/protocol';
import {
  claim,
  coordination,
  type FeedWire,
  lifecycle,
  offer,
  PLANNER,
  send,
  setCapacity,
  taskStream,
  uid,
  wiresOf,
} from './helpers/coordination';

// The deciders' state is a fold over the stream's own Wires — exactly what an
// HCS replay delivers — so folding the served Wires must give the live state.
function fold<S>(decider: CheckingDecider<S>, wires: FeedWire[]): S {
  const cfg = configOf(env);
  return wires.reduce(
    (state, w) => decider.evolve(state, w as unknown as Wire, cfg),
    decider.initialState(),
  );
}

describe('rebuilding coordination state from Wires', () => {
  it('reproduces task, agent and project state from their streams', async () => {
    const project = `project:${uid('rb')}`;
    const [up, down] = [uid('up'), uid('down')];
    await send(project, 'task.created', PLANNER, { task_id: up, role: 'developer' });
    await send(project, 'task.created', PLANNER, { task_id: down, role: 'developer' });
    await send(project, 'dependency.created', PLANNER, {
      downstream_task_id: down,
      upstream_task_id: up,
      release_on: { type: 'artifact.ready', name: 'schema' },
    });
    const agent = uid('ag');
    await setCapacity(agent, 4, 4);
    await offer(up, 'developer', 1, project);
    const won = await claim(up, agent, { units: 3 });
    const token = String(won.body.fencing_token);
    await lifecycle(up, agent, 'task.heartbeat', token);
    await lifecycle(up, agent, 'artifact.ready', token, {
      name: 'schema',
      artifact_type: 'sql',
      artifact_ref: 'git://schema.sql',
      sha256: 'c'.repeat(64),
    });

    expect(fold(taskDecider, await wiresOf(taskStream(up)))).toEqual(
      await coordination(taskStream(up)),
    );
    expect(fold(projectDecider, await wiresOf(project))).toEqual(await coordination(project));
    const now = Date.now();
    const { stale: _a, ...rebuilt } = agentView(
      fold(agentDecider, await wiresOf(`agent:${agent}`)),
      now,
      120_000,
    );
    const { stale: _b, ...live } = (await coordination(`agent:${agent}`)) as { stale: boolean };
    expect(rebuilt).toEqual(live);
    expect(live).toMatchObject({ available_units: 1, held_reservations: 1 });
    expect(await wiresOf(taskStream(down))).toHaveLength(1);
  });
});
