import * as z from 'zod';

/** Dotted lowercase event names: `task.claimed`, `agent.capacity.updated`. */
export const WIRE_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export const WireType = z
  .string()
  .max(100, 'type must be at most 100 characters')
  .regex(
    WIRE_TYPE_PATTERN,
    'type must be dotted lowercase words, e.g. "task.claimed" (letters, digits, _; at least one dot)',
  );

/** Wires that shape the plan; only coordinator and admin identities may post them. */
export function isOrchestrationType(type: string): boolean {
  return (
    type.startsWith('project.') ||
    [
      'task.available',
      'task.created',
      'dependency.created',
      'gate.opened',
      'gate.passed',
      'phase.created',
    ].includes(type)
  );
}
