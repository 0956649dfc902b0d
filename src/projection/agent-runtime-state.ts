import { parseStreamId, type Wire } from '../protocol';
import { int, isoOf, type Reducer, text, unhandled } from './reducer';

/** One row per agent, from its `agent:<id>` stream (seed 000, agent_runtime_state). */
export interface AgentRuntimeRow {
  [column: string]: string | number | null;
  agent_id: string;
  stream_id: string;
  role: string | null;
  status: string;
  available_units: number | null;
  max_units: number | null;
  /** JSON array of skill names. */
  skills: string;
  active_leases: number;
  /** JSON array of the task ids whose leases the agent holds. */
  leases: string;
  last_heartbeat_at: string | null;
  last_event_at: string;
  reducer_version: number;
  last_seq: number;
}

const HANDLED = [
  'agent.started',
  'agent.heartbeat',
  'agent.capacity.updated',
  'agent.lease.accepted',
  'agent.lease.released',
  'agent.stopped',
] as const;
type AgentEvent = (typeof HANDLED)[number];

function handles(type: string): type is AgentEvent {
  return (HANDLED as readonly string[]).includes(type);
}

function agentIdOf(streamId: string): string | null {
  const parsed = parseStreamId(streamId);
  return parsed?.kind === 'agent' && 'id' in parsed ? parsed.id : null;
}

function withLease(json: string, taskId: string | null, held: boolean): string {
  if (taskId === null) return json;
  const list = (JSON.parse(json) as string[]).filter((t) => t !== taskId);
  return JSON.stringify(held ? [...list, taskId] : list);
}

export const agentRuntimeState: Reducer<AgentRuntimeRow> = {
  model: 'agent_runtime_state',
  version: 1,
  key: 'agent_id',
  columns: [
    'agent_id',
    'stream_id',
    'role',
    'status',
    'available_units',
    'max_units',
    'skills',
    'active_leases',
    'leases',
    'last_heartbeat_at',
    'last_event_at',
    'reducer_version',
    'last_seq',
  ],

  owns: (streamId) => agentIdOf(streamId) !== null,

  initial(first: Wire): AgentRuntimeRow {
    return {
      agent_id: agentIdOf(first.stream_id) ?? first.stream_id,
      stream_id: first.stream_id,
      role: null,
      status: 'active',
      available_units: null,
      max_units: null,
      skills: '[]',
      active_leases: 0,
      leases: '[]',
      last_heartbeat_at: null,
      last_event_at: isoOf(first.ts),
      reducer_version: 0,
      last_seq: 0,
    };
  },

  evolve(prev: AgentRuntimeRow, wire: Wire): AgentRuntimeRow {
    const row: AgentRuntimeRow = { ...prev, last_event_at: isoOf(wire.ts) };
    const type = wire.type;
    if (!handles(type)) return row;
    const p = wire.payload;
    switch (type) {
      case 'agent.started':
        return { ...row, status: 'active', role: text(p, 'role') ?? row.role };
      case 'agent.heartbeat':
        return {
          ...row,
          status: row.status === 'stopped' ? 'active' : row.status,
          last_heartbeat_at: isoOf(wire.ts),
        };
      case 'agent.capacity.updated': {
        const skills = p.skills;
        return {
          ...row,
          available_units: int(p, 'available_units'),
          max_units: int(p, 'max_units'),
          skills: Array.isArray(skills)
            ? JSON.stringify(skills.filter((s) => typeof s === 'string'))
            : row.skills,
        };
      }
      case 'agent.lease.accepted':
      case 'agent.lease.released': {
        const leases = withLease(row.leases, text(p, 'task_id'), type === 'agent.lease.accepted');
        return { ...row, leases, active_leases: (JSON.parse(leases) as string[]).length };
      }
      case 'agent.stopped':
        return { ...row, status: 'stopped' };
      default:
        return unhandled(type);
    }
  },
};
