import { accept, type Decider } from '../../../kernel/kind';
import { fail } from '../../../protocol';
import type { CoordinationConfig } from '../config';

/**
 * Role feeds (`role:<role>`) carry copies of `task.available` that task
 * streams publish through their outbox; nobody else writes there.
 */
export const roleDecider: Decider<null, CoordinationConfig> = {
  initialState: () => null,
  decide: (wire) =>
    wire.sender === 'system' && wire.type === 'task.available'
      ? accept(wire)
      : fail(
          'invalid-transition',
          `${wire.stream_id} is a role feed: it carries task.available copies from task streams only`,
        ),
  evolve: () => null,
};
