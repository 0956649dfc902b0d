import * as z from 'zod';
import { type Failure, fail, type Wire } from '../../../protocol';
import { int, str } from '../config';
import type { AgentState } from './agent-state';

// The checks the coordinator's own Wires on `agent:<id>` must pass: their
// shape, and the reservation's state. Each returns a Failure to refuse, or null.

export const Reserve = z.object({
  reservation_id: z.string().min(1).max(600),
  units: z.int().min(1).max(1_000_000),
  task_stream_id: z.string(),
  expires_at: z.iso.datetime({ offset: true }),
});
export const ByReservation = z.object({ reservation_id: z.string().min(1).max(600) });
export const Return = ByReservation.extend({ only_if_pending: z.boolean().optional() });

export const SYSTEM_TYPES = [
  'agent.capacity.reserved',
  'agent.capacity.confirmed',
  'agent.capacity.returned',
];

export function shapeProblem(wire: Wire, schema: z.ZodType): Failure | null {
  const parsed = schema.safeParse(wire.payload);
  if (parsed.success) return null;
  const errors = parsed.error.issues.map((i) => ({
    path: ['payload', ...i.path].join('.'),
    message: i.message,
  }));
  return fail('invalid-wire', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}

export function reservationProblem(wire: Wire, state: AgentState): Failure | null {
  const agent = wire.stream_id;
  const id = str(wire.payload, 'reservation_id') ?? '';
  const existing = state.reservations[id];
  switch (wire.type) {
    case 'agent.capacity.reserved': {
      if (existing) {
        return fail('invalid-transition', `reservation "${id}" is already ${existing.status}`, {
          extra: { reservation_status: existing.status },
        });
      }
      if (state.status === 'stopped') {
        return fail('insufficient-capacity', `${agent} has stopped; it takes no new work`, {
          extra: { available_units: 0 },
        });
      }
      const units = int(wire.payload, 'units') ?? 0;
      if (state.availableUnits === null) {
        return fail(
          'insufficient-capacity',
          `${agent} has not declared its capacity (agent.capacity.updated)`,
          {
            extra: { available_units: 0, requested_units: units },
          },
        );
      }
      if (state.availableUnits < units) {
        return fail(
          'insufficient-capacity',
          `${agent} has ${state.availableUnits} of ${state.maxUnits} units free; the claim needs ${units}`,
          {
            extra: {
              available_units: state.availableUnits,
              max_units: state.maxUnits,
              requested_units: units,
            },
          },
        );
      }
      return null;
    }
    case 'agent.capacity.confirmed':
      if (existing?.status === 'pending') return null;
      return fail(
        'invalid-transition',
        `reservation "${id}" is ${existing ? 'already held' : 'unknown or already returned'}`,
        {
          extra: { reservation_status: existing ? existing.status : 'returned' },
        },
      );
    default: {
      if (!existing) {
        return fail('invalid-transition', `reservation "${id}" is unknown or already returned`, {
          extra: { reservation_status: 'returned' },
        });
      }
      if (wire.payload.only_if_pending === true && existing.status !== 'pending') {
        return fail(
          'invalid-transition',
          `reservation "${id}" is held by a live lease; it is returned when the lease ends`,
          {
            extra: { reservation_status: existing.status },
          },
        );
      }
      return null;
    }
  }
}
