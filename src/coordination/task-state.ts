import { parseStreamId, taskStreamId, type Wire } from '../protocol';
import { iso } from './types';

/**
 * The task stream `task:<id>:attempt:<n>`: offered, claimed once, worked
 * under a fenced lease, then complete, blocked, or handed back (released,
 * expired, revoked) — in which case attempt n+1 is offered on its own stream.
 */
export type TaskStatus =
  | 'new'
  | 'available'
  | 'claimed'
  | 'started'
  | 'complete'
  | 'blocked'
  | 'released'
  | 'expired'
  | 'revoked';

export interface Lease {
  agent: string;
  sender: string;
  /** `<attempt>.<stream_seq of the claim>`: unique per lease, ordered. */
  fencingToken: string;
  claimWireId: string;
  expiresAt: number;
  /** Lease length granted at the claim; a bare heartbeat extends by this much. */
  durationMs: number;
  units: number;
  /** Key of the capacity reservation on `agent:<agent>` (when units > 0). */
  reservationId: string;
}

export interface TaskState {
  taskId: string;
  attempt: number;
  role: string | null;
  project: string | null;
  status: TaskStatus;
  lease: Lease | null;
  ended: { lease: Lease; status: TaskStatus; at: string; seq: number } | null;
}

export const LIVE: readonly TaskStatus[] = ['claimed', 'started'];
export const REOFFERED: readonly TaskStatus[] = ['released', 'expired', 'revoked'];
export const ENDINGS: Record<string, TaskStatus> = {
  'task.complete': 'complete',
  'task.blocked': 'blocked',
  'task.released': 'released',
  'task.lease.expired': 'expired',
  'task.lease.revoked': 'revoked',
};
export const SIGNALS = ['contract.ready', 'artifact.ready', 'task.complete'];

/** Lifecycle Wires only the lease holder may append, with its fencing token. */
export function isFenced(type: string): boolean {
  return (
    type.startsWith('artifact.') ||
    [
      'task.started',
      'task.plan.created',
      'task.heartbeat',
      'task.complete',
      'task.blocked',
      'task.released',
      'contract.ready',
    ].includes(type)
  );
}

export function isClaim(type: string): boolean {
  return type === 'task.claimed' || type === 'task.claim';
}

export function where(streamId: string): { taskId: string; attempt: number } {
  const parsed = parseStreamId(streamId);
  if (parsed?.kind !== 'task' || !('attempt' in parsed))
    throw new Error(`not a task stream: ${streamId}`);
  return { taskId: parsed.taskId, attempt: parsed.attempt };
}

export function label(state: TaskState, streamId: string): string {
  const { taskId, attempt } = where(streamId);
  return `task "${state.taskId || taskId}" attempt ${state.attempt || attempt}`;
}

export function nextStream(streamId: string): string {
  const { taskId, attempt } = where(streamId);
  return taskStreamId(taskId, attempt + 1);
}

export function endingPhrase(state: TaskState, streamId: string): string {
  const ended = state.ended;
  if (!ended) return `status ${state.status}`;
  const how: Record<string, string> = {
    complete: 'was completed',
    blocked: 'was blocked',
    released: 'was released',
    expired: `expired at ${iso(ended.lease.expiresAt)}`,
    revoked: 'was revoked (its capacity reservation lapsed)',
  };
  const again = REOFFERED.includes(ended.status)
    ? `; the task was re-offered as ${nextStream(streamId)}`
    : '';
  return `the lease ${ended.lease.fencingToken} of ${ended.lease.sender} ${how[ended.status] ?? ended.status} (stream_seq ${ended.seq})${again}`;
}
/** Receipt members a claim or heartbeat adds: the lease the agent now holds. */
export interface LeaseFields {
  lease_expires_at?: string;
  fencing_token?: string;
  holder?: string;
}

export function leaseReceipt(
  state: TaskState,
  wire: Pick<Wire, 'type' | 'wire_id'>,
): LeaseFields | null {
  const lease = state.lease;
  if (!lease) return null;
  if (isClaim(wire.type) && lease.claimWireId === wire.wire_id) {
    return {
      lease_expires_at: iso(lease.expiresAt),
      fencing_token: lease.fencingToken,
      holder: lease.sender,
    };
  }
  if (wire.type === 'task.heartbeat')
    return { lease_expires_at: iso(lease.expiresAt), fencing_token: lease.fencingToken };
  return null;
}
