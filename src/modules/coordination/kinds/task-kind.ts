import { accept, defineKind, type Effect, type Hold } from '../../../kernel/kind';
import { type Draft, fail, newWireId, streamIdProblem } from '../../../protocol';
import { type CoordinationConfig, configOf, int, iso, str } from '../config';
import { isClaim, leaseReceipt, revokeDraft, type TaskState, taskDecider } from './task-decider';

/** Units reserved on the claimer's agent stream before its claim is decided. */
interface CapacityHold extends Hold {
  reservationId: string;
  agentStream: string;
  units: number;
}

function unitsOf(draft: Draft): number {
  return int(draft.payload, 'capacity_units_reserved') ?? 0;
}

function isCapacityHold(hold: Hold | null): hold is CapacityHold {
  return hold !== null && typeof hold.units === 'number' && typeof hold.agentStream === 'string';
}

/** Gives back a reservation the claim did not use (only while still pending). */
function returnOf(hold: CapacityHold, claim: Draft, now: number): Effect {
  return {
    target: hold.agentStream,
    draft: {
      wire: '1.1',
      wire_id: newWireId(now),
      stream_id: hold.agentStream,
      correlation_id: claim.correlation_id,
      causation_id: claim.wire_id,
      type: 'agent.capacity.returned',
      sender: 'system',
      ts: iso(now),
      payload: {
        reservation_id: hold.reservationId,
        units: hold.units,
        reason: 'claim-refused',
        only_if_pending: true,
      },
    },
  };
}

/**
 * The task stream `task:<id>:attempt:<n>`. A claim that reserves capacity is
 * a two-phase step across objects: `reserve` appends `agent.capacity.reserved`
 * to the agent's stream, keyed by a deterministic reservation id
 * (`<task stream>/<claim wire_id>`), before the claim is decided; the claim
 * then confirms it (an effect), or `release` returns it.
 */
export const taskKind = defineKind<TaskState, CoordinationConfig>({
  name: 'task',
  version: 3,
  config: configOf,
  decider: {
    ...taskDecider,
    decide(command, state, ctx) {
      const refused = taskDecider.check(command, state, ctx.now, ctx.cfg);
      if (refused) return refused;
      const units = unitsOf(command);
      if (isClaim(command.type) && units > 0) {
        const hold = isCapacityHold(ctx.hold) ? ctx.hold : null;
        if (hold?.units !== units)
          return fail('insufficient-capacity', 'no capacity was reserved for this claim');
      }
      return accept(command);
    },
  },
  hooks: {
    receipt(state, wire, replay) {
      if (replay) {
        // A retried claim or heartbeat of the lease that still stands answers
        // that lease as it is now (later heartbeats may have extended it).
        const lease = state.lease;
        if (lease?.claimWireId === wire.wire_id)
          return leaseReceipt(state, { type: 'task.claimed', wire_id: wire.wire_id });
        if (
          wire.type === 'task.heartbeat' &&
          str(wire.payload, 'fencing_token') === lease?.fencingToken
        )
          return leaseReceipt(state, wire);
        return null;
      }
      return leaseReceipt(state, wire);
    },

    async reserve(command, _state, ctx) {
      const units = unitsOf(command);
      if (!isClaim(command.type) || units <= 0 || ctx.isReplay()) return null;
      const hold: CapacityHold = {
        ok: true,
        reservationId: `${command.stream_id}/${command.wire_id}`,
        agentStream: `agent:${str(command.payload, 'agent') ?? ''}`,
        units,
      };
      const early = ctx.check(hold);
      if (early) return early;
      const problem = streamIdProblem(hold.agentStream);
      if (problem !== null)
        return fail('invalid-wire', `payload.agent cannot name an agent stream: ${problem}`);
      const reserve: Draft = {
        wire: '1.1',
        wire_id: newWireId(ctx.now),
        stream_id: hold.agentStream,
        correlation_id: command.correlation_id,
        causation_id: command.wire_id,
        type: 'agent.capacity.reserved',
        sender: 'system',
        ts: iso(ctx.now),
        payload: {
          reservation_id: hold.reservationId,
          units,
          task_stream_id: command.stream_id,
          expires_at: iso(ctx.now + ctx.cfg.reservationTimeoutMs),
        },
      };
      try {
        const result = await ctx.appendTo(hold.agentStream, reserve);
        if (result.ok) return hold;
        // A retry of this claim after a failed attempt whose cancel has not landed.
        if (result.code === 'invalid-transition' && result.extra?.reservation_status === 'pending')
          return hold;
        return result;
      } catch (error) {
        console.warn('capacity reservation failed', hold.agentStream, error);
        ctx.send(returnOf(hold, command, ctx.now));
        return fail(
          'coordination-unavailable',
          `the capacity of ${hold.agentStream} could not be reserved; retry the claim`,
        );
      }
    },

    cancel: (hold, command, now) => returnOf(hold as CapacityHold, command, now),

    /** A claim whose reservation lapsed before the confirm arrived loses its lease. */
    refused(effect, failure, state, streamId, now) {
      if (failure.extra?.reservation_status === 'held') return null;
      if (state.lease?.fencingToken !== str(effect.draft.payload, 'fencing_token')) return null;
      return revokeDraft(state, streamId, now, `capacity confirm refused: ${failure.detail}`);
    },

    // A task's Wires share its role's topic (seed 000, "Shared Topics With Stream IDs").
    topicGroup: {
      keyOf: (wire) => {
        const role = wire.payload.role;
        return typeof role === 'string' && role.length > 0 ? role : null;
      },
      topicOf: (role) => `roles.${role}`,
    },
  },
});
