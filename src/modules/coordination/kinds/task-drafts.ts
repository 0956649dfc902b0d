import { derivedWireId } from '../../../kernel/derived-id';
import type { Draft, Wire } from '../../../protocol';
import { iso } from '../config';
import type { TaskState } from './task-state';

// Wires the coordinator writes on a task's behalf.

/** The system Wire that revokes a lease whose capacity confirm was refused. */
export function revokeDraft(
  state: TaskState,
  streamId: string,
  now: number,
  detail: string,
): Draft | null {
  const lease = state.lease;
  if (!lease) return null;
  return {
    wire: '1.1',
    wire_id: derivedWireId('revoked', streamId, lease.fencingToken),
    stream_id: streamId,
    correlation_id: state.project,
    causation_id: lease.claimWireId,
    type: 'task.lease.revoked',
    sender: 'system',
    ts: iso(now),
    payload: {
      task_id: state.taskId,
      agent: lease.agent,
      fencing_token: lease.fencingToken,
      reason: detail,
    },
  };
}

export function system(
  cause: Wire,
  target: string,
  type: string,
  wireId: string,
  payload: Draft['payload'],
): Draft {
  return {
    wire: '1.1',
    wire_id: wireId,
    stream_id: target,
    correlation_id: cause.correlation_id,
    causation_id: cause.wire_id,
    type,
    sender: 'system',
    ts: cause.ts,
    payload,
  };
}

export function feedCopy(wire: Wire, feed: string): Draft {
  return {
    ...system(
      wire,
      feed,
      'task.available',
      derivedWireId('feed', wire.stream_id, wire.stream_seq),
      {
        ...wire.payload,
        stream_id: wire.stream_id,
        source_wire_id: wire.wire_id,
      },
    ),
  };
}
