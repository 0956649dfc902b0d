import { type Failure, fail, type Wire } from '../../../protocol';
import { type CoordinationConfig, checkTs, iso, str } from '../config';
import { endingPhrase, LIVE, label, nextStream, REOFFERED, type TaskState } from './task-state';

// The checks a task-stream Wire must pass: its clock, claims, and fenced
// lifecycle Wires. Each returns a Failure to refuse, or null.

export function leaseEnd(wire: Wire, durationMs: number, cfg: CoordinationConfig): number {
  const ts = Date.parse(wire.ts);
  const asked = str(wire.payload, 'lease_expires_at');
  const requested = asked === undefined ? ts + durationMs : Date.parse(asked);
  return Math.min(requested, ts + cfg.leaseMaxMs);
}

export function decideClaim(
  wire: Wire,
  state: TaskState,
  now: number,
  cfg: CoordinationConfig,
): Failure | null {
  const agent = str(wire.payload, 'agent') ?? '';
  const it = label(state, wire.stream_id);
  if (wire.sender !== `agent:${agent}` && wire.sender !== agent) {
    return fail(
      'invalid-wire',
      `sender "${wire.sender}" must be "agent:${agent}", the agent named in payload.agent`,
      {
        errors: [{ path: 'sender', message: 'a claim is made by the claiming agent' }],
      },
    );
  }
  const lease = state.lease;
  if (lease && LIVE.includes(state.status)) {
    return fail(
      'task-already-claimed',
      `${it} is held by ${lease.sender} until ${iso(lease.expiresAt)}`,
      {
        extra: {
          holder: lease.sender,
          lease_expires_at: iso(lease.expiresAt),
          task_status: state.status,
        },
      },
    );
  }
  if (state.status !== 'available') {
    const why =
      state.status === 'pending'
        ? 'has not been offered (no task.available on this stream)'
        : state.status === 'complete' || state.status === 'blocked'
          ? `is ${state.status}`
          : `is closed: ${endingPhrase(state, wire.stream_id)}`;
    return fail('task-not-available', `${it} ${why}`, {
      extra: {
        task_status: state.status,
        ...(REOFFERED.includes(state.status) ? { next_stream_id: nextStream(wire.stream_id) } : {}),
      },
    });
  }
  const role = str(wire.payload, 'role');
  if (state.role !== null && role !== state.role) {
    return fail('invalid-transition', `${it} is offered to role "${state.role}", not "${role}"`, {
      extra: { role: state.role },
    });
  }
  const skew = checkTs(wire, now, cfg);
  if (skew) return skew;
  if (leaseEnd(wire, 0, cfg) <= now) {
    return fail('invalid-wire', 'payload.lease_expires_at must be in the future', {
      errors: [
        { path: 'payload.lease_expires_at', message: 'the lease would already have expired' },
      ],
    });
  }
  return null;
}

export function decideFenced(
  wire: Wire,
  state: TaskState,
  now: number,
  cfg: CoordinationConfig,
): Failure | null {
  const it = label(state, wire.stream_id);
  const token = str(wire.payload, 'fencing_token');
  const lease = state.lease;
  if (lease) {
    if (wire.sender !== lease.sender) {
      return fail(
        'not-lease-holder',
        `${it} is held by ${lease.sender}; only the holder may append ${wire.type}`,
        {
          extra: { holder: lease.sender },
        },
      );
    }
    if (token === undefined) {
      return fail(
        'invalid-wire',
        `${wire.type} must carry payload.fencing_token, the token from the claim receipt`,
        {
          errors: [{ path: 'payload.fencing_token', message: 'required for lifecycle Wires' }],
        },
      );
    }
    if (token !== lease.fencingToken) {
      return fail(
        'stale-fencing-token',
        `fencing token "${token}" is not the live lease's: ${it} is held under token "${lease.fencingToken}" (a token "<attempt>.<claim stream_seq>" from an earlier attempt or claim is superseded)`,
        { extra: { fencing_token: token, live_fencing_token: lease.fencingToken } },
      );
    }
    if (now >= lease.expiresAt) {
      return fail(
        'stale-fencing-token',
        `the lease ${token} of ${lease.sender} expired at ${iso(lease.expiresAt)}; the task is being re-offered as ${nextStream(wire.stream_id)}`,
        { extra: { fencing_token: token, lease_expires_at: iso(lease.expiresAt) } },
      );
    }
    if (wire.type === 'task.heartbeat') {
      const skew = checkTs(wire, now, cfg);
      if (skew) return skew;
      if (leaseEnd(wire, lease.durationMs, cfg) <= now) {
        return fail('invalid-wire', 'payload.lease_expires_at must be in the future', {
          errors: [
            { path: 'payload.lease_expires_at', message: 'a heartbeat cannot end the lease' },
          ],
        });
      }
    }
    return null;
  }
  if (state.ended && token === state.ended.lease.fencingToken) {
    return fail(
      'stale-fencing-token',
      `${it} no longer accepts ${wire.type}: ${endingPhrase(state, wire.stream_id)}`,
      {
        extra: {
          fencing_token: token,
          task_status: state.status,
          ...(REOFFERED.includes(state.status)
            ? { next_stream_id: nextStream(wire.stream_id) }
            : {}),
        },
      },
    );
  }
  if (token !== undefined) {
    return fail(
      'stale-fencing-token',
      `fencing token "${token}" names no lease of ${it} (${endingPhrase(state, wire.stream_id)})`,
      {
        extra: { fencing_token: token, task_status: state.status },
      },
    );
  }
  return fail(
    'invalid-transition',
    `${wire.type} needs a live lease, but ${it} has none (status ${state.status}): claim it first`,
    {
      extra: { task_status: state.status },
    },
  );
}
