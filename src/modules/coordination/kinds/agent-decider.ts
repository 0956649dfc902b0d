import * as z from 'zod';
import { derivedWireId } from '../../../kernel/derived-id';
import { type Failure, fail, type Wire } from '../../../protocol';
import { checking, checkTs, int, iso, str } from '../config';
import { evolveKeys, isKeyType, type KeyRecord, keyProblem } from './agent-keys';

/**
 * The agent stream `agent:<id>`: health (started, heartbeats, stopped),
 * declared capacity, and the capacity reservations task streams make for
 * claims. Reservations are Wires on this stream (written by the coordinator
 * as `system`), so available units can be rebuilt from the log like
 * everything else and never go negative: a reservation is refused unless the
 * units are there.
 *
 * `available_units` means the units a new claim may take now: what the agent
 * declares free, but never more than `max_units` minus the units reserved
 * (pending or held). An agent that restarts and re-declares `3 of 3` while
 * holding 2 gets 1 available; a declared `max_units` below what is reserved
 * is refused. So reserved ≤ max and available + reserved ≤ max, for every
 * sequence of Wires (test/node/hardening-capacity.test.ts).
 *
 *   agent.capacity.reserved   pending, returned by the alarm if never confirmed
 *   agent.capacity.confirmed  held until the task's lease ends
 *   agent.capacity.returned   units back (cancel, completion, release, expiry)
 */
export interface Reservation {
  units: number;
  status: 'pending' | 'held';
  /** Pending reservations lapse at this time; held ones have none. */
  expiresAt: number | null;
  taskStreamId: string;
}

export interface AgentState {
  status: 'unknown' | 'running' | 'stopped';
  role: string | null;
  maxUnits: number | null;
  availableUnits: number | null;
  lastSeenAt: number | null;
  lastHeartbeatAt: string | null;
  activeLeases: string[];
  reservations: Record<string, Reservation>;
  /** Its signing keys, every one it registered (`agent-keys.ts`). */
  keys: KeyRecord[];
}

const Reserve = z.object({
  reservation_id: z.string().min(1).max(600),
  units: z.int().min(1).max(1_000_000),
  task_stream_id: z.string(),
  expires_at: z.iso.datetime({ offset: true }),
});
const ByReservation = z.object({ reservation_id: z.string().min(1).max(600) });
const Return = ByReservation.extend({ only_if_pending: z.boolean().optional() });

const SYSTEM_TYPES = [
  'agent.capacity.reserved',
  'agent.capacity.confirmed',
  'agent.capacity.returned',
];

function shapeProblem(wire: Wire, schema: z.ZodType): Failure | null {
  const parsed = schema.safeParse(wire.payload);
  if (parsed.success) return null;
  const errors = parsed.error.issues.map((i) => ({
    path: ['payload', ...i.path].join('.'),
    message: i.message,
  }));
  return fail('invalid-wire', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}

function reservationProblem(wire: Wire, state: AgentState): Failure | null {
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

/** Units reserved, pending or held. */
export function reservedUnits(reservations: Record<string, { units: number }>): number {
  return Object.values(reservations).reduce((sum, r) => sum + r.units, 0);
}

/** What a claim may take: the free units, within max minus what is reserved. */
export function availableWithin(free: number, max: number, reserved: number): number {
  return Math.max(0, Math.min(free, max - reserved));
}

export const agentDecider = checking<AgentState>({
  initialState: () => ({
    status: 'unknown',
    role: null,
    maxUnits: null,
    availableUnits: null,
    lastSeenAt: null,
    lastHeartbeatAt: null,
    activeLeases: [],
    reservations: {},
    keys: [],
  }),

  check(wire, state, now, cfg) {
    // An agent's own Wires set when it was last seen (its liveness): their
    // `ts` must be near the server clock, or one heartbeat dated 9999 keeps
    // it alive forever and one dated 1970 makes it stale at once.
    if (wire.sender === wire.stream_id) {
      const skew = checkTs(wire, now, cfg, "an agent's own Wires (they date its liveness)");
      if (skew) return skew;
    }
    if (wire.type === 'agent.capacity.updated') {
      const max = int(wire.payload, 'max_units') ?? 0;
      const reserved = reservedUnits(state.reservations);
      if (max < reserved) {
        return fail(
          'invalid-transition',
          `max_units ${max} is below the ${reserved} units reserved on ${wire.stream_id}; declare at least ${reserved}`,
          { extra: { max_units: max, reserved_units: reserved } },
        );
      }
    }
    // Key Wires come from the agent or an admin (the API's rights checked which).
    if (isKeyType(wire.type)) return keyProblem(wire, state.keys);
    if (!SYSTEM_TYPES.includes(wire.type)) {
      // An agent speaks for itself: health and capacity on agent:<id> come from agent:<id>.
      const own = wire.stream_id;
      if (wire.type.startsWith('agent.') && wire.sender !== own && wire.sender !== 'system') {
        return fail(
          'forbidden',
          `${wire.type} on ${own} must be sent by ${own}, not ${wire.sender}`,
          {
            extra: { sender: wire.sender },
          },
        );
      }
      return null;
    }
    if (wire.sender !== 'system') {
      return fail('invalid-transition', `${wire.type} is written by the coordinator only`);
    }
    const schema =
      wire.type === 'agent.capacity.reserved'
        ? Reserve
        : wire.type === 'agent.capacity.returned'
          ? Return
          : ByReservation;
    return shapeProblem(wire, schema) ?? reservationProblem(wire, state);
  },

  evolve(state, wire) {
    const p = wire.payload;
    // Only the agent's own Wires say it is alive (not the system's, not another sender's).
    const seen = wire.sender === wire.stream_id ? Date.parse(wire.ts) : state.lastSeenAt;
    const next: AgentState = { ...state, lastSeenAt: seen };
    if (isKeyType(wire.type)) return { ...next, keys: evolveKeys(state.keys, wire) };
    const id = str(p, 'reservation_id') ?? '';
    const existing = next.reservations[id];
    switch (wire.type) {
      case 'agent.started':
        return { ...next, status: 'running', role: str(p, 'role') ?? next.role };
      case 'agent.heartbeat':
        return {
          ...next,
          status: next.status === 'stopped' ? 'stopped' : 'running',
          lastHeartbeatAt: wire.ts,
        };
      case 'agent.stopped':
        return { ...next, status: 'stopped' };
      case 'agent.capacity.updated': {
        const max = int(p, 'max_units') ?? 0;
        return {
          ...next,
          availableUnits: availableWithin(
            int(p, 'available_units') ?? 0,
            max,
            reservedUnits(next.reservations),
          ),
          maxUnits: max,
        };
      }
      case 'agent.lease.accepted': {
        const task = str(p, 'task_id') ?? '';
        return { ...next, activeLeases: [...next.activeLeases.filter((t) => t !== task), task] };
      }
      case 'agent.lease.released': {
        const task = str(p, 'task_id') ?? '';
        return { ...next, activeLeases: next.activeLeases.filter((t) => t !== task) };
      }
      case 'agent.capacity.reserved': {
        const units = int(p, 'units') ?? 0;
        const reservation: Reservation = {
          units,
          status: 'pending',
          expiresAt: Date.parse(str(p, 'expires_at') ?? wire.ts),
          taskStreamId: str(p, 'task_stream_id') ?? '',
        };
        return {
          ...next,
          availableUnits: (next.availableUnits ?? 0) - units,
          reservations: { ...next.reservations, [id]: reservation },
        };
      }
      case 'agent.capacity.confirmed':
        if (!existing) return next;
        return {
          ...next,
          reservations: {
            ...next.reservations,
            [id]: { ...existing, status: 'held', expiresAt: null },
          },
        };
      case 'agent.capacity.returned': {
        if (!existing) return next;
        const { [id]: _gone, ...rest } = next.reservations;
        const back = (next.availableUnits ?? 0) + existing.units;
        return {
          ...next,
          availableUnits: availableWithin(back, next.maxUnits ?? back, reservedUnits(rest)),
          reservations: rest,
        };
      }
      default:
        return next;
    }
  },

  react: () => [],

  tick(state, now, streamId) {
    return Object.entries(state.reservations)
      .filter(([, r]) => r.expiresAt !== null && r.expiresAt <= now)
      .map(([id, r]) => ({
        wire: '1.1' as const,
        wire_id: derivedWireId('lapsed', streamId, id, r.expiresAt ?? 0),
        stream_id: streamId,
        correlation_id: null,
        causation_id: null,
        type: 'agent.capacity.returned',
        sender: 'system',
        ts: iso(now),
        payload: {
          reservation_id: id,
          units: r.units,
          reason: 'reservation-timeout',
          task_stream_id: r.taskStreamId,
        },
      }));
  },

  wakeAt(state) {
    const times = Object.values(state.reservations).flatMap((r) =>
      r.expiresAt === null ? [] : [r.expiresAt],
    );
    return times.length > 0 ? Math.min(...times) : null;
  },
});

/** The DO-side agent view the read models and deciders need. */
export function agentView(state: AgentState, now: number, staleMs: number) {
  const pending = Object.values(state.reservations).filter((r) => r.status === 'pending');
  const held = Object.values(state.reservations).filter((r) => r.status === 'held');
  return {
    status: state.status,
    stale: state.lastSeenAt === null || now - state.lastSeenAt > staleMs,
    role: state.role,
    available_units: state.availableUnits,
    max_units: state.maxUnits,
    reserved_units: [...pending, ...held].reduce((sum, r) => sum + r.units, 0),
    pending_reservations: pending.length,
    held_reservations: held.length,
    active_leases: state.activeLeases,
    last_seen_at: state.lastSeenAt === null ? null : iso(state.lastSeenAt),
    last_heartbeat_at: state.lastHeartbeatAt,
    keys: state.keys,
  };
}
