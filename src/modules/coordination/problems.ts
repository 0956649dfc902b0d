import type { ProblemSpec } from '../../kernel/module';

/** The failure codes seed 000's deciders return, with their problem+json status. */
export const COORDINATION_PROBLEMS = {
  'task-already-claimed': { status: 409, title: 'Another agent holds the lease on this task' },
  'task-not-available': { status: 409, title: 'The task is not open for claims' },
  'stale-fencing-token': { status: 409, title: 'The fencing token is not the live lease' },
  'not-lease-holder': { status: 403, title: 'Only the lease holder may append this' },
  'insufficient-capacity': { status: 409, title: 'The agent lacks the capacity units' },
} as const satisfies Record<string, ProblemSpec>;
