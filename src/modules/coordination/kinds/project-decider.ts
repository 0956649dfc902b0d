import { derivedWireId } from '../../../kernel/derived-id';
import type { Effect } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { fail, streamIdProblem, taskStreamId, type Wire } from '../../../protocol';
import { checking, str } from '../config';

/**
 * The project stream `project:<id>`: the task graph (`task.created`,
 * `dependency.created`), gates (`gate.opened`, `gate.passed`) and the
 * readiness signals task streams forward here (`upstream.ready`, written by
 * the coordinator when a task stream with this correlation_id emits
 * `contract.ready`, `artifact.ready` or `task.complete`).
 *
 * A task with at least one dependency or gate is released — `task.available`
 * on `task:<id>:attempt:1`, caused by the satisfying Wire — the moment every
 * dependency is met and every gate holding it has passed, so downstream work
 * can start before its upstream completes (seed 000, "Earlier Dependency
 * Release"). Tasks with neither are offered by whoever plans the project.
 */
export interface ProjectTask {
  role: string;
  released: boolean;
  releasedBy: string | null;
}

export interface Dependency {
  downstream: string;
  upstream: string;
  on: 'task.complete' | 'contract.ready' | 'artifact.ready';
  name: string | null;
  satisfiedBy: string | null;
}

export interface ProjectState {
  tasks: Record<string, ProjectTask>;
  dependencies: Dependency[];
  gates: Record<string, { status: 'open' | 'passed'; taskIds: string[] }>;
  /** Signals seen so far (`upstream|type|name` → satisfying wire_id). */
  signals: Record<string, string>;
}

function signalKey(upstream: string, on: string, name: string | null): string {
  return `${upstream}|${on}|${on === 'task.complete' ? '' : (name ?? '')}`;
}

function stringList(value: Wire['payload'][string] | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function releaseOn(wire: Wire): { type: string; name: string | null } {
  const raw = wire.payload.release_on;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { type: '', name: null };
  return {
    type: typeof raw.type === 'string' ? raw.type : '',
    name: typeof raw.name === 'string' ? raw.name : null,
  };
}

export const projectDecider = checking<ProjectState>({
  initialState: () => ({ tasks: {}, dependencies: [], gates: {}, signals: {} }),

  check(wire, state) {
    const p = wire.payload;
    switch (wire.type) {
      case 'task.created': {
        const id = str(p, 'task_id') ?? '';
        if (ownValue(state.tasks, id))
          return fail(
            'invalid-transition',
            `task "${id}" was already created in ${wire.stream_id}`,
          );
        const problem = streamIdProblem(taskStreamId(id, 1));
        if (problem !== null) {
          return fail(
            'invalid-wire',
            `payload.task_id "${id}" cannot name a task stream: ${problem}`,
            {
              errors: [
                { path: 'payload.task_id', message: 'letters, digits, . _ ~ - (at most 128)' },
              ],
            },
          );
        }
        return null;
      }
      case 'dependency.created': {
        const down = str(p, 'downstream_task_id') ?? '';
        const up = str(p, 'upstream_task_id') ?? '';
        const on = releaseOn(wire);
        for (const [id, path] of [
          [down, 'downstream_task_id'],
          [up, 'upstream_task_id'],
        ] as const) {
          if (!ownValue(state.tasks, id)) {
            return fail(
              'invalid-transition',
              `payload.${path} "${id}" is not a task of ${wire.stream_id}: record task.created first`,
            );
          }
        }
        if (down === up)
          return fail('invalid-wire', 'a task cannot depend on itself', {
            errors: [{ path: 'payload.upstream_task_id', message: 'equals downstream_task_id' }],
          });
        if (on.type !== 'task.complete' && on.name === null) {
          return fail(
            'invalid-wire',
            `release_on ${on.type} needs a name (the contract or artifact that releases "${down}")`,
            {
              errors: [
                {
                  path: 'payload.release_on.name',
                  message: 'required for contract.ready and artifact.ready',
                },
              ],
            },
          );
        }
        if (ownValue(state.tasks, down)?.released)
          return fail('invalid-transition', `task "${down}" was already released`);
        return null;
      }
      case 'gate.opened': {
        const gate = str(p, 'gate_id') ?? '';
        if (ownValue(state.gates, gate))
          return fail('invalid-transition', `gate "${gate}" was already opened`);
        const unknown = stringList(p.task_ids).filter((t) => !ownValue(state.tasks, t));
        if (unknown.length > 0)
          return fail(
            'invalid-transition',
            `gate "${gate}" holds unknown tasks: ${unknown.join(', ')}`,
          );
        return null;
      }
      case 'gate.passed': {
        const gate = str(p, 'gate_id') ?? '';
        const known = ownValue(state.gates, gate);
        if (!known) return fail('invalid-transition', `gate "${gate}" was never opened`);
        if (known.status === 'passed')
          return fail('invalid-transition', `gate "${gate}" has already passed`);
        return null;
      }
      case 'upstream.ready':
        return wire.sender === 'system'
          ? null
          : fail('invalid-transition', 'upstream.ready is written by the coordinator only');
      default:
        return null;
    }
  },

  evolve(state, wire) {
    const p = wire.payload;
    let next: ProjectState = state;
    let cause = wire.wire_id;
    switch (wire.type) {
      case 'task.created': {
        const id = str(p, 'task_id') ?? '';
        next = {
          ...state,
          tasks: {
            ...state.tasks,
            [id]: { role: str(p, 'role') ?? '', released: false, releasedBy: null },
          },
        };
        break;
      }
      case 'dependency.created': {
        const on = releaseOn(wire);
        const up = str(p, 'upstream_task_id') ?? '';
        const dep: Dependency = {
          downstream: str(p, 'downstream_task_id') ?? '',
          upstream: up,
          on: on.type as Dependency['on'],
          name: on.name,
          satisfiedBy: ownValue(state.signals, signalKey(up, on.type, on.name)) ?? null,
        };
        next = { ...state, dependencies: [...state.dependencies, dep] };
        if (dep.satisfiedBy) cause = dep.satisfiedBy;
        break;
      }
      case 'gate.opened':
        next = {
          ...state,
          gates: {
            ...state.gates,
            [str(p, 'gate_id') ?? '']: { status: 'open', taskIds: stringList(p.task_ids) },
          },
        };
        break;
      case 'gate.passed': {
        const id = str(p, 'gate_id') ?? '';
        const gate = ownValue(state.gates, id);
        if (gate)
          next = { ...state, gates: { ...state.gates, [id]: { ...gate, status: 'passed' } } };
        break;
      }
      case 'upstream.ready': {
        const up = str(p, 'task_id') ?? '';
        const on = str(p, 'signal') ?? '';
        const name = str(p, 'name') ?? null;
        const key = signalKey(up, on, name);
        cause = str(p, 'source_wire_id') ?? wire.wire_id;
        next = {
          ...state,
          signals: { ...state.signals, [key]: cause },
          dependencies: state.dependencies.map((d) =>
            d.satisfiedBy === null && signalKey(d.upstream, d.on, d.name) === key
              ? { ...d, satisfiedBy: cause }
              : d,
          ),
        };
        break;
      }
      default:
        return state;
    }
    return release(next, cause);
  },

  react(before, after, wire) {
    const effects: Effect[] = [];
    for (const [id, task] of Object.entries(after.tasks)) {
      if (!task.released || ownValue(before.tasks, id)?.released) continue;
      const target = taskStreamId(id, 1);
      effects.push({
        target,
        draft: {
          wire: '1.1',
          wire_id: derivedWireId('release', wire.stream_id, id),
          stream_id: target,
          correlation_id: wire.stream_id,
          causation_id: task.releasedBy,
          type: 'task.available',
          sender: 'system',
          ts: wire.ts,
          payload: {
            task_id: id,
            role: task.role,
            attempt: 1,
            released_by: task.releasedBy ?? wire.wire_id,
          },
        },
      });
    }
    return effects;
  },

  tick: () => [],
  wakeAt: () => null,
});

function release(state: ProjectState, cause: string): ProjectState {
  let tasks = state.tasks;
  for (const [id, task] of Object.entries(state.tasks)) {
    if (task.released) continue;
    const deps = state.dependencies.filter((d) => d.downstream === id);
    const gates = Object.values(state.gates).filter((g) => g.taskIds.includes(id));
    if (deps.length + gates.length === 0) continue;
    if (deps.every((d) => d.satisfiedBy !== null) && gates.every((g) => g.status === 'passed')) {
      tasks = { ...tasks, [id]: { ...task, released: true, releasedBy: cause } };
    }
  }
  return tasks === state.tasks ? state : { ...state, tasks };
}
