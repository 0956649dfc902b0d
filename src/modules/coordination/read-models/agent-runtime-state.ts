import { int, isoOf, oneOf, type Reducer, text, unhandled } from '../../../projection/reducer';
import { parseStreamId, type Wire } from '../../../protocol';
import { availableWithin, reservedUnits } from '../kinds/agent-state';

/**
 * One row per agent, from its `agent:<id>` stream (seed 000,
 * agent_runtime_state). Capacity follows the coordinator's agent decider:
 * declared with `agent.capacity.updated`, taken by `agent.capacity.reserved`,
 * given back by `agent.capacity.returned` (never above max_units minus reserved).
 */
export interface AgentRuntimeRow {
  [column: string]: string | number | null;
  agent_id: string;
  stream_id: string;
  role: string | null;
  /** unknown (no agent.started yet), running or stopped. */
  status: string;
  available_units: number | null;
  max_units: number | null;
  reserved_units: number;
  /** JSON object: reservation_id → `{units, status: pending|held}`. */
  reservations: string;
  /** JSON array of skill names. */
  skills: string;
  active_leases: number;
  /** JSON array of the task ids whose leases the agent holds. */
  leases: string;
  last_heartbeat_at: string | null;
  /** `ts` of the agent's own last Wire (sent by `agent:<id>` itself): staleness. */
  last_seen_at: string | null;
  last_event_at: string;
  reducer_version: number;
  last_seq: number;
}

const HANDLED = [
  'agent.started',
  'agent.heartbeat',
  'agent.capacity.updated',
  'agent.capacity.reserved',
  'agent.capacity.confirmed',
  'agent.capacity.returned',
  'agent.lease.accepted',
  'agent.lease.released',
  'agent.stopped',
] as const;

const handles = oneOf(HANDLED);

type Reservations = Record<string, { units: number; status: 'pending' | 'held' }>;

function agentIdOf(streamId: string): string | null {
  const parsed = parseStreamId(streamId);
  return parsed?.kind === 'agent' && 'id' in parsed ? parsed.id : null;
}

function withLease(json: string, taskId: string | null, held: boolean): string {
  if (taskId === null) return json;
  const list = (JSON.parse(json) as string[]).filter((t) => t !== taskId);
  return JSON.stringify(held ? [...list, taskId] : list);
}

function withReservations(row: AgentRuntimeRow, next: Reservations): AgentRuntimeRow {
  const ids = Object.keys(next).sort();
  const sorted: Reservations = {};
  for (const id of ids) sorted[id] = next[id] as Reservations[string];
  return {
    ...row,
    reservations: JSON.stringify(sorted),
    reserved_units: ids.reduce((sum, id) => sum + (next[id]?.units ?? 0), 0),
  };
}

export const agentRuntimeState: Reducer<AgentRuntimeRow> = {
  model: 'agent_runtime_state',
  version: 3,
  key: 'agent_id',
  columns: [
    'agent_id',
    'stream_id',
    'role',
    'status',
    'available_units',
    'max_units',
    'reserved_units',
    'reservations',
    'skills',
    'active_leases',
    'leases',
    'last_heartbeat_at',
    'last_seen_at',
    'last_event_at',
    'reducer_version',
    'last_seq',
  ],

  kinds: ['agent'],

  initial(first: Wire): AgentRuntimeRow {
    return {
      agent_id: agentIdOf(first.stream_id) ?? first.stream_id,
      stream_id: first.stream_id,
      role: null,
      status: 'unknown',
      available_units: null,
      max_units: null,
      reserved_units: 0,
      reservations: '{}',
      skills: '[]',
      active_leases: 0,
      leases: '[]',
      last_heartbeat_at: null,
      last_seen_at: null,
      last_event_at: isoOf(first.ts),
      reducer_version: 0,
      last_seq: 0,
    };
  },

  evolve(prev: AgentRuntimeRow, wire: Wire): AgentRuntimeRow {
    const row: AgentRuntimeRow = {
      ...prev,
      last_event_at: isoOf(wire.ts),
      last_seen_at: wire.sender === wire.stream_id ? isoOf(wire.ts) : prev.last_seen_at,
    };
    const type = wire.type;
    if (!handles(type)) return row;
    const p = wire.payload;
    const reservations = JSON.parse(row.reservations) as Reservations;
    const id = text(p, 'reservation_id') ?? '';
    const existing = reservations[id];
    switch (type) {
      case 'agent.started':
        return { ...row, status: 'running', role: text(p, 'role') ?? row.role };
      case 'agent.heartbeat':
        return {
          ...row,
          status: row.status === 'stopped' ? 'stopped' : 'running',
          last_heartbeat_at: isoOf(wire.ts),
        };
      case 'agent.stopped':
        return { ...row, status: 'stopped' };
      case 'agent.capacity.updated': {
        const skills = p.skills;
        const max = int(p, 'max_units') ?? 0;
        return {
          ...row,
          // The decider's rule (agent-state.ts): never more than max minus reserved.
          available_units: availableWithin(int(p, 'available_units') ?? 0, max, row.reserved_units),
          max_units: max,
          skills: Array.isArray(skills)
            ? JSON.stringify(skills.filter((s) => typeof s === 'string'))
            : row.skills,
        };
      }
      case 'agent.capacity.reserved': {
        const units = int(p, 'units') ?? 0;
        return withReservations(
          { ...row, available_units: (row.available_units ?? 0) - units },
          { ...reservations, [id]: { units, status: 'pending' } },
        );
      }
      case 'agent.capacity.confirmed':
        if (!existing) return row;
        return withReservations(row, { ...reservations, [id]: { ...existing, status: 'held' } });
      case 'agent.capacity.returned': {
        if (!existing) return row;
        const { [id]: _gone, ...rest } = reservations;
        const back = (row.available_units ?? 0) + existing.units;
        return withReservations(
          {
            ...row,
            available_units: availableWithin(back, row.max_units ?? back, reservedUnits(rest)),
          },
          rest,
        );
      }
      case 'agent.lease.accepted':
      case 'agent.lease.released': {
        const leases = withLease(row.leases, text(p, 'task_id'), type === 'agent.lease.accepted');
        return { ...row, leases, active_leases: (JSON.parse(leases) as string[]).length };
      }
      default:
        return unhandled(type);
    }
  },
};
