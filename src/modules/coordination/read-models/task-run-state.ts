import { int, isoOf, oneOf, type Reducer, text, unhandled } from '../../../projection/reducer';
import { parseStreamId, type Wire } from '../../../protocol';
import type { TaskStatus } from '../catalogue';
import { type CoordinationVars, configOf } from '../config';
import { leaseEnd } from '../kinds/task-checks';

/** Every `status` the reducer below gives an attempt: the task decider's. */
export const TASK_RUN_STATUSES = [
  'pending',
  'available',
  'claimed',
  'started',
  'blocked',
  'complete',
  'released',
  'expired',
  'revoked',
] as const satisfies readonly TaskStatus[];

/** One attempt of one task: `task:<task_id>:attempt:<n>` (seed 000, task_run_state). */
export interface TaskRunRow {
  [column: string]: string | number | null;
  stream_id: string;
  task_id: string;
  attempt: number;
  role: string | null;
  status: (typeof TASK_RUN_STATUSES)[number];
  claimed_by: string | null;
  lease_expires_at: string | null;
  /** The claim's lease length: a heartbeat without a time extends by this much. */
  lease_ms: number | null;
  capacity_units_reserved: number | null;
  last_heartbeat_at: string | null;
  plan_ref: string | null;
  blocker: string | null;
  output_ref: string | null;
  verification_status: string | null;
  /** JSON array of `{artifact_id, artifact_type, artifact_ref, sha256, status}`. */
  artifacts: string;
  /** JSON array of contract names announced ready. */
  contracts: string;
  concerns: number;
  correlation_id: string | null;
  last_event_at: string;
  reducer_version: number;
  last_seq: number;
}

const HANDLED = [
  'task.available',
  'task.claim',
  'task.claimed',
  'task.started',
  'task.plan.created',
  'task.blocked',
  'task.complete',
  'artifact.claimed',
  'artifact.ready',
  'contract.ready',
  'review.concern',
  'agent.heartbeat',
  'task.heartbeat',
  'task.released',
  'task.lease.expired',
  'task.lease.revoked',
] as const;

const handles = oneOf(HANDLED);

interface ArtifactEntry {
  artifact_id: string | null;
  artifact_type: string | null;
  artifact_ref: string | null;
  sha256: string | null;
  status: 'claimed' | 'ready';
}

function withArtifact(json: string, entry: ArtifactEntry): string {
  const list = JSON.parse(json) as ArtifactEntry[];
  const same = (a: ArtifactEntry) =>
    entry.artifact_id !== null
      ? a.artifact_id === entry.artifact_id
      : a.artifact_id === null && a.artifact_type === entry.artifact_type;
  const index = list.findIndex(same);
  if (index === -1) list.push(entry);
  else {
    const prev = list[index] as ArtifactEntry;
    list[index] = {
      artifact_id: entry.artifact_id ?? prev.artifact_id,
      artifact_type: entry.artifact_type ?? prev.artifact_type,
      artifact_ref: entry.artifact_ref ?? prev.artifact_ref,
      sha256: entry.sha256 ?? prev.sha256,
      status: entry.status === 'ready' ? 'ready' : prev.status,
    };
  }
  return JSON.stringify(list);
}

function withName(json: string, name: string): string {
  const list = JSON.parse(json) as string[];
  return list.includes(name) ? json : JSON.stringify([...list, name]);
}

export const taskRunState: Reducer<TaskRunRow> = {
  model: 'task_run_state',
  version: 2,
  key: 'stream_id',
  columns: [
    'stream_id',
    'task_id',
    'attempt',
    'role',
    'status',
    'claimed_by',
    'lease_expires_at',
    'lease_ms',
    'capacity_units_reserved',
    'last_heartbeat_at',
    'plan_ref',
    'blocker',
    'output_ref',
    'verification_status',
    'artifacts',
    'contracts',
    'concerns',
    'correlation_id',
    'last_event_at',
    'reducer_version',
    'last_seq',
  ],

  kinds: ['task'],

  initial(first: Wire): TaskRunRow {
    const parsed = parseStreamId(first.stream_id);
    const task = parsed?.kind === 'task' && 'taskId' in parsed ? parsed : null;
    return {
      stream_id: first.stream_id,
      task_id: task?.taskId ?? first.stream_id,
      attempt: task?.attempt ?? 1,
      role: null,
      status: 'pending',
      claimed_by: null,
      lease_expires_at: null,
      lease_ms: null,
      capacity_units_reserved: null,
      last_heartbeat_at: null,
      plan_ref: null,
      blocker: null,
      output_ref: null,
      verification_status: null,
      artifacts: '[]',
      contracts: '[]',
      concerns: 0,
      correlation_id: null,
      last_event_at: isoOf(first.ts),
      reducer_version: 0,
      last_seq: 0,
    };
  },

  evolve(prev: TaskRunRow, wire: Wire, settings): TaskRunRow {
    const row: TaskRunRow = {
      ...prev,
      last_event_at: isoOf(wire.ts),
      correlation_id: prev.correlation_id ?? wire.correlation_id,
    };
    const type = wire.type;
    if (!handles(type)) return row;
    const p = wire.payload;
    switch (type) {
      case 'task.available':
        return { ...row, status: 'available', role: text(p, 'role') ?? row.role };
      case 'task.claim':
      case 'task.claimed': {
        // The decider's own rule: the lease asked for, capped at LEASE_MAX_SECONDS.
        const expires = leaseEnd(wire, 0, configOf(settings as CoordinationVars));
        const length = expires - Date.parse(wire.ts);
        return {
          ...row,
          status: 'claimed',
          role: text(p, 'role') ?? row.role,
          claimed_by: text(p, 'agent'),
          lease_expires_at: Number.isFinite(expires) ? new Date(expires).toISOString() : null,
          lease_ms: Number.isFinite(length) ? length : null,
          capacity_units_reserved: int(p, 'capacity_units_reserved'),
        };
      }
      case 'task.started':
        return { ...row, status: 'started' };
      case 'task.plan.created':
        return { ...row, plan_ref: text(p, 'plan_ref') ?? row.plan_ref };
      case 'task.heartbeat': {
        // The holder extends its lease: to the time it names, else by the
        // claim's length, capped at LEASE_MAX_SECONDS: the decider's rule.
        if (row.lease_ms === null || row.lease_expires_at === null)
          return { ...row, last_heartbeat_at: isoOf(wire.ts) };
        const expires = leaseEnd(wire, row.lease_ms, configOf(settings as CoordinationVars));
        return {
          ...row,
          last_heartbeat_at: isoOf(wire.ts),
          lease_expires_at: Number.isFinite(expires)
            ? new Date(expires).toISOString()
            : row.lease_expires_at,
        };
      }
      case 'task.released':
        return { ...row, status: 'released', lease_expires_at: null };
      case 'task.lease.expired':
        return { ...row, status: 'expired', lease_expires_at: null };
      case 'task.lease.revoked':
        return { ...row, status: 'revoked', lease_expires_at: null };
      case 'task.blocked':
        return { ...row, status: 'blocked', blocker: text(p, 'reason'), lease_expires_at: null };
      case 'task.complete':
        return {
          ...row,
          status: 'complete',
          lease_expires_at: null,
          output_ref: text(p, 'output_ref') ?? row.output_ref,
          verification_status: text(p, 'verification_status') ?? row.verification_status,
        };
      case 'artifact.claimed':
      case 'artifact.ready':
        return {
          ...row,
          artifacts: withArtifact(row.artifacts, {
            artifact_id: text(p, 'artifact_id'),
            artifact_type: text(p, 'artifact_type'),
            artifact_ref: text(p, 'artifact_ref'),
            sha256: text(p, 'sha256'),
            status: type === 'artifact.ready' ? 'ready' : 'claimed',
          }),
        };
      case 'contract.ready': {
        const name = text(p, 'contract');
        return name === null ? row : { ...row, contracts: withName(row.contracts, name) };
      }
      case 'review.concern':
        return { ...row, concerns: row.concerns + 1, verification_status: 'concerns' };
      case 'agent.heartbeat':
        return { ...row, last_heartbeat_at: isoOf(wire.ts) };
      default:
        return unhandled(type);
    }
  },
};
