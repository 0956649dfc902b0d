import { fail, parseStreamId } from '../protocol';
import { agentDecider } from './agent-decider';
import { projectDecider } from './project-decider';
import { taskDecider } from './task-decider';
import type { Decider } from './types';

/**
 * Role feeds (`role:<role>`) carry copies of `task.available` that task
 * streams publish through their outbox; nobody else writes there.
 */
const roleDecider: Decider<null> = {
  initialState: () => null,
  decide: (wire) =>
    wire.sender === 'system' && wire.type === 'task.available'
      ? null
      : fail(
          'invalid-transition',
          `${wire.stream_id} is a role feed: it carries task.available copies from task streams only`,
        ),
  evolve: () => null,
  react: () => [],
  tick: () => [],
  wakeAt: () => null,
};

export type Kind = 'task' | 'agent' | 'project' | 'role';

// The deciders differ in state type; the coordinator treats state as opaque.
const DECIDERS: Record<Kind, Decider<unknown>> = {
  task: taskDecider as Decider<unknown>,
  agent: agentDecider as Decider<unknown>,
  project: projectDecider as Decider<unknown>,
  role: roleDecider as Decider<unknown>,
};

/** The decider for a stream, or null for kinds without coordination rules. */
export function deciderOf(streamId: string): { kind: Kind; decider: Decider<unknown> } | null {
  const kind = parseStreamId(streamId)?.kind;
  if (kind === 'task' || kind === 'agent' || kind === 'project' || kind === 'role') {
    return { kind, decider: DECIDERS[kind] };
  }
  return null;
}
