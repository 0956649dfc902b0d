import { parseStreamId, taskStreamId, type Wire } from '../../../protocol';
import { COORDINATION_TYPES, type TaskStatus, typeOf } from '../catalogue';
import { iso } from '../config';

/**
 * The task stream `task:<id>:attempt:<n>`: offered, claimed once, worked
 * under a fenced lease, then complete, blocked, or handed back (released,
 * expired, revoked) — in which case attempt n+1 is offered on its own stream.
 */
export type { TaskStatus } from '../catalogue';

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
/** The status each ending Wire gives the attempt (from the catalogue). */
export const ENDINGS: Record<string, TaskStatus> = Object.fromEntries(
  Object.entries(COORDINATION_TYPES).flatMap(([type, t]) => (t.ending ? [[type, t.ending]] : [])),
);

/** Wires that tell the project an upstream is ready. */
export const SIGNALS = Object.keys(COORDINATION_TYPES).filter((t) => COORDINATION_TYPES[t]?.signal);

/**
 * The project a task's offer names for good: the `project:<id>` it
 * correlates with, else none (read by the decider and the read models).
 */
export function projectOf(offer: Pick<Wire, 'correlation_id'>): string | null {
  return offer.correlation_id?.startsWith('project:') ? offer.correlation_id : null;
}

/** Lifecycle Wires only the lease holder may append, with its fencing token. */
export function isFenced(type: string): boolean {
  // Every artifact.* type is the holder's work, named or not in the catalogue.
  return typeOf(type)?.fenced === true || type.startsWith('artifact.');
}

export function isClaim(type: string): boolean {
  return typeOf(type)?.claim === true;
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
export type LeaseFields = {
  lease_expires_at?: string;
  fencing_token?: string;
  holder?: string;
};

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
