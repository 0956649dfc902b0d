import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mirrorSource, rebuild } from '../../src/projection';
import { standinUrl } from './helpers/anchoring';
import { type Body, claim, lifecycle, offer, send, setCapacity, uid } from './helpers/coordination';
import { comparableDump, runRebuild, untilQuiet } from './helpers/projection-live';

/**
 * The acceptance property of the read models: whatever agents do, the rows
 * the live projection wrote equal the rows a rebuild from the HCS mirror
 * (the stand-in network) produces. Workloads are random multi-agent runs:
 * claims racing with capacity, lifecycle Wires, artifacts, releases that
 * re-offer work as the next attempt, heartbeats, capacity changes.
 */

const Cmd = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('claim'),
      task: fc.nat(3),
      agent: fc.nat(2),
      units: fc.nat(3),
    }),
  },
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constantFrom('start', 'plan', 'artifact', 'contract', 'concern', 'heartbeat'),
      task: fc.nat(3),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom('complete', 'block', 'release'),
      task: fc.nat(3),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('capacity'),
      agent: fc.nat(2),
      max: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('agent-heartbeat'), agent: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('agent-stop'), agent: fc.nat(2) }) },
);
type Cmd = {
  kind: string;
  task?: number;
  agent?: number;
  units?: number;
  max?: number;
};

interface Holder {
  agent: string;
  token: string;
}

async function runWorkload(cmds: Cmd[]): Promise<number> {
  const run = uid('r');
  const agents = [0, 1, 2].map((i) => `${run}a${i}`);
  const tasks = [0, 1, 2, 3].map((i) => `${run}t${i}`);
  const project = `project:${run}`;
  const attempt = tasks.map(() => 1);
  const holder: (Holder | null)[] = tasks.map(() => null);
  let accepted = 0;
  const ok = (s: { status: number }) => {
    if (s.status === 201) accepted++;
    return s.status === 201;
  };

  for (const a of agents) {
    ok(await send(`agent:${a}`, 'agent.started', `agent:${a}`, { role: 'developer' }));
    ok(await setCapacity(a, 4, 4));
  }
  for (const t of tasks) ok(await offer(t, 'developer', 1, project));

  for (const cmd of cmds) {
    const ti = cmd.task ?? 0;
    const task = tasks[ti] ?? '';
    const h = holder[ti] ?? null;
    const n = attempt[ti] ?? 1;
    const life = (type: string, payload: Body = {}) =>
      h ? lifecycle(task, h.agent, type, h.token, payload, n) : null;
    switch (cmd.kind) {
      case 'claim': {
        const agent = agents[cmd.agent ?? 0] ?? '';
        const res = await claim(task, agent, { attempt: n, units: cmd.units ?? 0 });
        if (ok(res)) holder[ti] = { agent, token: String(res.body.fencing_token) };
        break;
      }
      case 'start':
        ok((await life('task.started')) ?? { status: 0 });
        break;
      case 'plan':
        ok((await life('task.plan.created', { plan_ref: `plans/${task}.md` })) ?? { status: 0 });
        break;
      case 'artifact':
        ok(
          (await life('artifact.ready', {
            artifact_type: 'migration',
            artifact_ref: `r2://${task}/${n}.sql`,
            sha256: 'c'.repeat(64),
          })) ?? { status: 0 },
        );
        break;
      case 'contract':
        ok((await life('contract.ready', { contract: `c-${task}` })) ?? { status: 0 });
        break;
      case 'concern':
        ok(
          (await life('review.concern', { concern: 'naming', severity: 'minor' })) ?? { status: 0 },
        );
        break;
      case 'heartbeat':
        ok((await life('task.heartbeat')) ?? { status: 0 });
        break;
      case 'complete':
      case 'block':
      case 'release': {
        const type =
          cmd.kind === 'complete'
            ? 'task.complete'
            : cmd.kind === 'block'
              ? 'task.blocked'
              : 'task.released';
        const payload = cmd.kind === 'block' ? { reason: 'waiting on review' } : {};
        if (ok((await life(type, payload)) ?? { status: 0 })) {
          holder[ti] = null;
          // A release re-offers the task as the next attempt (a system Wire).
          if (cmd.kind === 'release') attempt[ti] = n + 1;
        }
        break;
      }
      case 'capacity': {
        const a = agents[cmd.agent ?? 0] ?? '';
        ok(await setCapacity(a, cmd.max ?? 1, cmd.max ?? 1));
        break;
      }
      case 'agent-heartbeat': {
        const a = agents[cmd.agent ?? 0] ?? '';
        ok(await send(`agent:${a}`, 'agent.heartbeat', `agent:${a}`, {}));
        break;
      }
      case 'agent-stop': {
        const a = agents[cmd.agent ?? 0] ?? '';
        ok(await send(`agent:${a}`, 'agent.stopped', `agent:${a}`, { reason: 'done' }));
        break;
      }
    }
  }
  return accepted;
}

describe('rebuild from the stand-in mirror', () => {
  it('equals the live projection, row for row, after random multi-agent workloads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Cmd, { minLength: 10, maxLength: 40 }), async (cmds) => {
        const accepted = await runWorkload(cmds);
        expect(accepted).toBeGreaterThan(0);
        await untilQuiet();
        const live = await comparableDump();
        const lines = await runRebuild();
        expect(lines.at(-1)).toMatchObject({ phase: 'done', skipped: 0 });
        const rebuilt = await comparableDump();
        expect(rebuilt.stream_state).toEqual(live.stream_state);
        expect(rebuilt.task_run_state).toEqual(live.task_run_state);
        expect(rebuilt.agent_runtime_state).toEqual(live.agent_runtime_state);
        expect(rebuilt.wire_events).toEqual(live.wire_events);
        // Replaying the same Wires twice leaves the read models unchanged.
        await runRebuild();
        expect(await comparableDump()).toEqual(rebuilt);
        // Reading the mirror five messages a page (chunked Wires span pages)
        // and folding wire_events three rows a page (streams span pages),
        // with the state through JSON between steps, changes nothing.
        const topics = await env.DB.prepare('SELECT topic_id FROM projection_topics').all<{
          topic_id: string;
        }>();
        const source = mirrorSource(standinUrl(), 5);
        const state = await rebuild(env.DB, source, {
          topics: topics.results.map((t) => t.topic_id),
          foldPage: 3,
        });
        expect(state).toMatchObject({ phase: 'done', skipped: 0 });
        expect(await comparableDump()).toEqual(rebuilt);
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 240_000);
});
