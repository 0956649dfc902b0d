import {
  type Draft,
  type Failure,
  fail,
  parseStreamId,
  streamIdProblem,
  taskStreamId,
  type Wire,
} from '../protocol';
import { derivedWireId } from './derived-id';
import { type CoordinationConfig, type Decider, type Effect, int, iso, str } from './types';

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

const LIVE: readonly TaskStatus[] = ['claimed', 'started'];
const REOFFERED: readonly TaskStatus[] = ['released', 'expired', 'revoked'];
const ENDINGS: Record<string, TaskStatus> = {
  'task.complete': 'complete',
  'task.blocked': 'blocked',
  'task.released': 'released',
  'task.lease.expired': 'expired',
  'task.lease.revoked': 'revoked',
};
const SIGNALS = ['contract.ready', 'artifact.ready', 'task.complete'];

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

function where(streamId: string): { taskId: string; attempt: number } {
  const parsed = parseStreamId(streamId);
  if (parsed?.kind !== 'task' || !('attempt' in parsed))
    throw new Error(`not a task stream: ${streamId}`);
  return { taskId: parsed.taskId, attempt: parsed.attempt };
}

function label(state: TaskState, streamId: string): string {
  const { taskId, attempt } = where(streamId);
  return `task "${state.taskId || taskId}" attempt ${state.attempt || attempt}`;
}

function nextStream(streamId: string): string {
  const { taskId, attempt } = where(streamId);
  return taskStreamId(taskId, attempt + 1);
}

function endingPhrase(state: TaskState, streamId: string): string {
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

function checkTs(wire: Wire, now: number, cfg: CoordinationConfig): Failure | null {
  const skew = Math.abs(Date.parse(wire.ts) - now);
  if (skew <= cfg.clockSkewMs) return null;
  return fail(
    'invalid-wire',
    `ts ${wire.ts} is ${Math.round(skew / 1000)} s from the server clock; lease-bearing Wires must be within ${cfg.clockSkewMs / 1000} s`,
    { errors: [{ path: 'ts', message: 'too far from the server clock' }] },
  );
}

function leaseEnd(wire: Wire, durationMs: number, cfg: CoordinationConfig): number {
  const ts = Date.parse(wire.ts);
  const asked = str(wire.payload, 'lease_expires_at');
  const requested = asked === undefined ? ts + durationMs : Date.parse(asked);
  return Math.min(requested, ts + cfg.leaseMaxMs);
}

function decideClaim(
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
      state.status === 'new'
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

function decideFenced(
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

export const taskDecider: Decider<TaskState> = {
  initialState: () => ({
    taskId: '',
    attempt: 0,
    role: null,
    project: null,
    status: 'new',
    lease: null,
    ended: null,
  }),

  decide(wire, state, now, cfg) {
    const { taskId, attempt } = where(wire.stream_id);
    const named = str(wire.payload, 'task_id');
    if (wire.type.startsWith('task.') && named !== undefined && named !== taskId) {
      return fail(
        'invalid-wire',
        `payload.task_id "${named}" differs from the stream's task "${taskId}"`,
        {
          errors: [{ path: 'payload.task_id', message: 'must name the task of this stream' }],
        },
      );
    }
    if (wire.type === 'task.available') {
      if (state.status !== 'new') {
        return fail(
          'invalid-transition',
          `${label(state, wire.stream_id)} was already offered (status ${state.status})`,
          {
            extra: { task_status: state.status },
          },
        );
      }
      const asked = int(wire.payload, 'attempt');
      if (asked !== undefined && asked !== attempt) {
        return fail(
          'invalid-wire',
          `payload.attempt ${asked} differs from the stream's attempt ${attempt}`,
          {
            errors: [{ path: 'payload.attempt', message: 'must match the stream id' }],
          },
        );
      }
      return null;
    }
    if (isClaim(wire.type)) return decideClaim(wire, state, now, cfg);
    if (wire.type === 'task.lease.expired' || wire.type === 'task.lease.revoked') {
      return fail('invalid-transition', `${wire.type} is written by the coordinator only`);
    }
    return isFenced(wire.type) ? decideFenced(wire, state, now, cfg) : null;
  },

  evolve(state, wire, cfg) {
    const { taskId, attempt } = where(wire.stream_id);
    const next: TaskState = { ...state, taskId, attempt };
    if (wire.type === 'task.available') {
      // The offer (a coordinator's Wire) names the task's project for good.
      const project = wire.correlation_id?.startsWith('project:') ? wire.correlation_id : null;
      return { ...next, status: 'available', role: str(wire.payload, 'role') ?? null, project };
    }
    if (isClaim(wire.type)) {
      const expiresAt = leaseEnd(wire, 0, cfg);
      const agent = str(wire.payload, 'agent') ?? '';
      const lease: Lease = {
        agent,
        sender: wire.sender,
        fencingToken: `${attempt}.${wire.stream_seq}`,
        claimWireId: wire.wire_id,
        expiresAt,
        durationMs: expiresAt - Date.parse(wire.ts),
        units: int(wire.payload, 'capacity_units_reserved') ?? 0,
        reservationId: `${wire.stream_id}/${wire.wire_id}`,
      };
      return {
        ...next,
        status: 'claimed',
        lease,
        role: next.role ?? str(wire.payload, 'role') ?? null,
      };
    }
    const lease = next.lease;
    if (!lease) return next;
    if (wire.type === 'task.heartbeat') {
      return { ...next, lease: { ...lease, expiresAt: leaseEnd(wire, lease.durationMs, cfg) } };
    }
    if (wire.type === 'task.started') return { ...next, status: 'started' };
    const ending = ENDINGS[wire.type];
    if (ending) {
      return {
        ...next,
        status: ending,
        lease: null,
        ended: { lease, status: ending, at: wire.ts, seq: wire.stream_seq },
      };
    }
    return next;
  },

  react(before, after, wire) {
    const effects: Effect[] = [];
    if (wire.type === 'task.available' && after.role !== null) {
      const feed = `role:${after.role}`;
      if (streamIdProblem(feed) === null)
        effects.push({ target: feed, draft: feedCopy(wire, feed) });
    }
    if (isClaim(wire.type) && after.lease && after.lease.units > 0) {
      effects.push({
        target: `agent:${after.lease.agent}`,
        onRefused: 'revoke-lease',
        draft: system(
          wire,
          `agent:${after.lease.agent}`,
          'agent.capacity.confirmed',
          derivedWireId('confirm', wire.stream_id, after.lease.fencingToken),
          {
            reservation_id: after.lease.reservationId,
            task_stream_id: wire.stream_id,
            fencing_token: after.lease.fencingToken,
          },
        ),
      });
    }
    const ended = before.lease && !after.lease ? before.lease : null;
    if (ended && ended.units > 0) {
      effects.push({
        target: `agent:${ended.agent}`,
        draft: system(
          wire,
          `agent:${ended.agent}`,
          'agent.capacity.returned',
          derivedWireId('return', wire.stream_id, ended.fencingToken),
          {
            reservation_id: ended.reservationId,
            units: ended.units,
            reason: after.status,
            task_stream_id: wire.stream_id,
          },
        ),
      });
    }
    if (ended && REOFFERED.includes(after.status) && after.role !== null) {
      const target = taskStreamId(after.taskId, after.attempt + 1);
      effects.push({
        target,
        draft: {
          ...system(
            wire,
            target,
            'task.available',
            derivedWireId('offer', after.taskId, after.attempt + 1),
            {
              task_id: after.taskId,
              role: after.role,
              attempt: after.attempt + 1,
              previous_stream_id: wire.stream_id,
              reason: after.status,
            },
          ),
          correlation_id: after.project,
        },
      });
    }
    // A signal goes to the project its Wire correlates with, else the task's.
    const project = wire.correlation_id?.startsWith('project:')
      ? wire.correlation_id
      : after.project;
    if (SIGNALS.includes(wire.type) && project && streamIdProblem(project) === null) {
      const p = wire.payload;
      const name =
        wire.type === 'contract.ready'
          ? str(p, 'contract')
          : (str(p, 'name') ?? str(p, 'artifact_id') ?? str(p, 'artifact_type'));
      effects.push({
        target: project,
        draft: {
          ...system(
            wire,
            project,
            'upstream.ready',
            derivedWireId('signal', wire.stream_id, wire.stream_seq),
            {
              task_id: after.taskId,
              signal: wire.type,
              ...(name === undefined ? {} : { name }),
              source_stream_id: wire.stream_id,
              source_wire_id: wire.wire_id,
            },
          ),
          correlation_id: project,
        },
      });
    }
    return effects;
  },

  tick(state, now, streamId) {
    const lease = state.lease;
    if (!lease || now < lease.expiresAt) return [];
    return [
      {
        wire: '1.1',
        wire_id: derivedWireId('expired', streamId, lease.fencingToken),
        stream_id: streamId,
        correlation_id: state.project,
        causation_id: lease.claimWireId,
        type: 'task.lease.expired',
        sender: 'system',
        ts: iso(now),
        payload: {
          task_id: state.taskId,
          attempt: state.attempt,
          agent: lease.agent,
          fencing_token: lease.fencingToken,
          lease_expires_at: iso(lease.expiresAt),
          next_stream_id: nextStream(streamId),
        },
      },
    ];
  },

  wakeAt: (state) => state.lease?.expiresAt ?? null,
};

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

function system(
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

function feedCopy(wire: Wire, feed: string): Draft {
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
