import { derivedWireId } from '../../../kernel/derived-id';
import type { Effect } from '../../../kernel/kind';
import { fail, streamIdProblem, taskStreamId } from '../../../protocol';
import { checking, int, iso, str } from '../config';
import { decideClaim, decideFenced, leaseEnd } from './task-checks';
import { feedCopy, system } from './task-drafts';
import {
  ENDINGS,
  isClaim,
  isFenced,
  type Lease,
  label,
  nextStream,
  projectOf,
  REOFFERED,
  SIGNALS,
  type TaskState,
  where,
} from './task-state';

export { revokeDraft } from './task-drafts';

/** Tag of the capacity confirm: refused, it revokes the lease it was for. */
export const REVOKE_ON_REFUSAL = 'revoke-lease';
export type { Lease, LeaseFields, TaskState, TaskStatus } from './task-state';
export { isClaim, isFenced, leaseReceipt } from './task-state';

/**
 * The task stream `task:<id>:attempt:<n>`: offered, claimed once, worked
 * under a fenced lease, then complete, blocked, or handed back (released,
 * expired, revoked) — in which case attempt n+1 is offered on its own stream.
 * The checks live in `task-checks.ts`, the state in `task-state.ts`, the
 * Wires the coordinator writes in `task-drafts.ts`.
 */
export const taskDecider = checking<TaskState>({
  initialState: () => ({
    taskId: '',
    attempt: 0,
    role: null,
    project: null,
    status: 'pending',
    lease: null,
    ended: null,
  }),

  check(wire, state, now, cfg) {
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
      if (state.status !== 'pending') {
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
      const project = projectOf(wire);
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
        tag: REVOKE_ON_REFUSAL,
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
});
