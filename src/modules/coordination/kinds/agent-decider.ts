import { derivedWireId } from '../../../kernel/derived-id';
import { fail } from '../../../protocol';
import { checking, checkTs, int, iso, str } from '../config';
import {
  ByReservation,
  Reserve,
  Return,
  reservationProblem,
  SYSTEM_TYPES,
  shapeProblem,
} from './agent-checks';
import { evolveKeys, isKeyType, keyProblem } from './agent-keys';
import { type AgentState, availableWithin, type Reservation, reservedUnits } from './agent-state';

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
