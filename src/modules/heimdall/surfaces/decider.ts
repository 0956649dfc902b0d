import { derivedWireId } from '../../../kernel/derived-id';
import { accept, type Decider } from '../../../kernel/kind';
import { hasOwnKey, ownValue, withOwn } from '../../../kernel/records';
import { type Draft, type Failure, fail, type Wire } from '../../../protocol';
import { speaksFor } from '../identity';
import { type Collision, claimGlobs, findCollision } from './collision';
import {
  isLive,
  KEEP_REFUSALS,
  type SurfaceClaim,
  type SurfaceRefusal,
  type SurfacesState,
} from './state';

/**
 * The collision gate: the decider of `surfaces:<workspace>` streams. A
 * `surface.claim` is granted (stored as sent; its wire_id is the claim id)
 * unless one of its globs can match a path that a live claim of another
 * identity can match, with either side exclusive; then the stream stores a
 * `surface.refused` verdict instead, naming the holder, its globs, task and
 * expiry. Renewal, release, force-release and expiry are Wires too. Time
 * comes in as `ctx.now`; a claim's expiry is its Wire's `ts` + ttl, so
 * `evolve` is a pure fold (what an HCS replay reproduces).
 */

/** How far a claim Wire's `ts` may be from the deciding clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

type P = Record<string, unknown>;
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const s = (p: P, k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');
const n = (p: P, k: string): number => (typeof p[k] === 'number' ? (p[k] as number) : 0);

function plusMinutes(ts: string, minutes: number): string {
  return new Date(Date.parse(ts) + Math.round(minutes * 60_000)).toISOString();
}

/** The verdict stored instead of a refused claim (a new wire id per attempt). */
function refusalDraft(command: Wire, hit: Collision, now: number): Draft {
  const p = command.payload;
  return {
    wire: '1.1',
    wire_id: derivedWireId('surfref', command.wire_id, command.stream_seq),
    stream_id: command.stream_id,
    correlation_id: command.correlation_id,
    causation_id: command.wire_id,
    type: 'surface.refused',
    sender: 'system',
    ts: new Date(now).toISOString(),
    payload: {
      haid: s(p, 'haid'),
      surfaces: strs(p.surfaces),
      task: s(p, 'task'),
      mode: s(p, 'mode'),
      holder: hit.holder.haid,
      holder_claim_id: hit.holder.claim_id,
      holder_surfaces: hit.holder.surfaces,
      holder_task: hit.holder.task,
      holder_expires_at: hit.holder.expires_at,
      overlap: { mine: hit.mine, theirs: hit.theirs, example_path: hit.path },
    },
  };
}

function heldBy(state: SurfacesState, claimId: string, sender: string, now: number) {
  const claim = ownValue(state.claims, claimId);
  if (!claim || !isLive(claim, now)) {
    return fail('claim-not-found', `no live claim "${claimId}" in this workspace`, {
      extra: { claim_id: claimId },
    });
  }
  if (!speaksFor(sender, claim.haid)) {
    return fail(
      'not-claim-holder',
      `claim "${claimId}" is held by "${claim.haid}", not "${sender}"`,
      {
        extra: { claim_id: claimId, holder: claim.haid },
      },
    );
  }
  return claim;
}

function decideClaim(command: Wire, state: SurfacesState, now: number): readonly Draft[] | Failure {
  const p = command.payload;
  const haid = s(p, 'haid');
  if (!speaksFor(command.sender, haid)) {
    return fail('forbidden', `sender "${command.sender}" may not claim for haid "${haid}"`, {
      extra: { field: 'haid', haid },
    });
  }
  // The claim names its holder in task_ref (the seed's "client HAID woven into task_ref").
  const taskRef = `${s(p, 'task')}@${haid}`;
  if (s(p, 'task_ref') !== taskRef) {
    const reason = `task_ref must be "<task>@<haid>" ("${taskRef}"), not "${s(p, 'task_ref')}"`;
    return fail('invalid-body', `payload.task_ref: ${reason}`, {
      errors: [{ path: 'payload.task_ref', message: reason }],
      extra: { field: 'task_ref' },
    });
  }
  const ts = Date.parse(command.ts);
  if (Math.abs(ts - now) > MAX_CLOCK_SKEW_MS) {
    return fail(
      'invalid-transition',
      `a claim's ts must be within 5 minutes of now (${command.ts})`,
    );
  }
  const globs = claimGlobs(strs(p.surfaces));
  if (!Array.isArray(globs)) return globs;
  const hit = findCollision(
    state,
    haid,
    s(p, 'mode') === 'shared' ? 'shared' : 'exclusive',
    globs,
    now,
  );
  return hit ? [refusalDraft(command, hit, now)] : accept(command);
}

export const surfacesDecider: Decider<SurfacesState, unknown> = {
  initialState: () => ({
    claims: {},
    refusals: [],
    refused: 0,
    ended: { released: 0, expired: 0, force_released: 0 },
  }),

  decide(command, state, ctx) {
    const p = command.payload;
    switch (command.type) {
      case 'surface.claim':
        return decideClaim(command, state, ctx.now);
      case 'surface.renewed': {
        const held = heldBy(state, s(p, 'claim_id'), command.sender, ctx.now);
        return 'ok' in held ? held : accept(command);
      }
      case 'surface.released': {
        for (const id of strs(p.claim_ids)) {
          const held = heldBy(state, id, command.sender, ctx.now);
          if ('ok' in held) return held;
          if (!speaksFor(command.sender, s(p, 'haid')) || !speaksFor(s(p, 'haid'), held.haid)) {
            return fail('not-claim-holder', `claim "${id}" is held by "${held.haid}"`, {
              extra: { claim_id: id, holder: held.haid },
            });
          }
        }
        return accept(command);
      }
      case 'surface.force_released':
      case 'surface.expired': {
        const id = s(p, 'claim_id');
        if (command.type === 'surface.expired' && command.sender !== 'system') {
          return fail('forbidden', 'surface.expired is written by the gate itself');
        }
        if (!hasOwnKey(state.claims, id)) {
          return fail('claim-not-found', `no claim "${id}" in this workspace`, {
            extra: { claim_id: id },
          });
        }
        return accept(command);
      }
      case 'surface.refused':
        return fail('forbidden', 'surface.refused is written by the gate itself');
      default:
        return fail('invalid-transition', `"${command.type}" is not a surface-claim Wire`);
    }
  },

  evolve(state, wire) {
    const p = wire.payload;
    switch (wire.type) {
      case 'surface.claim': {
        const claim: SurfaceClaim = {
          claim_id: wire.wire_id,
          haid: s(p, 'haid'),
          surfaces: strs(p.surfaces),
          task: s(p, 'task'),
          task_ref: s(p, 'task_ref'),
          mode: s(p, 'mode') === 'shared' ? 'shared' : 'exclusive',
          claimed_at: new Date(Date.parse(wire.ts)).toISOString(),
          expires_at: plusMinutes(wire.ts, n(p, 'ttl_minutes')),
          renewals: 0,
        };
        return { ...state, claims: withOwn(state.claims, claim.claim_id, claim) };
      }
      case 'surface.renewed': {
        const claim = ownValue(state.claims, s(p, 'claim_id'));
        if (!claim) return state;
        const renewed = {
          ...claim,
          expires_at: plusMinutes(wire.ts, n(p, 'ttl_minutes')),
          renewals: claim.renewals + 1,
        };
        return { ...state, claims: withOwn(state.claims, claim.claim_id, renewed) };
      }
      case 'surface.released':
      case 'surface.force_released':
      case 'surface.expired': {
        const ids = wire.type === 'surface.released' ? strs(p.claim_ids) : [s(p, 'claim_id')];
        const claims = { ...state.claims };
        for (const id of ids) delete claims[id];
        const how =
          wire.type === 'surface.released'
            ? 'released'
            : wire.type === 'surface.expired'
              ? 'expired'
              : 'force_released';
        return {
          ...state,
          claims,
          ended: { ...state.ended, [how]: state.ended[how] + ids.length },
        };
      }
      case 'surface.refused': {
        const refusal: SurfaceRefusal = {
          at: wire.ts,
          haid: s(p, 'haid'),
          surfaces: strs(p.surfaces),
          task: s(p, 'task'),
          holder: s(p, 'holder'),
          holder_claim_id: s(p, 'holder_claim_id'),
          holder_surfaces: strs(p.holder_surfaces),
          holder_task: s(p, 'holder_task'),
          holder_expires_at: s(p, 'holder_expires_at'),
        };
        return {
          ...state,
          refusals: [...state.refusals, refusal].slice(-KEEP_REFUSALS),
          refused: state.refused + 1,
        };
      }
      default:
        return state;
    }
  },

  tick(state, now, streamId) {
    return Object.values(state.claims)
      .filter((claim) => !isLive(claim, now))
      .map((claim) => ({
        wire: '1.1' as const,
        wire_id: derivedWireId('surfexp', claim.claim_id, claim.expires_at),
        stream_id: streamId,
        correlation_id: null,
        causation_id: claim.claim_id,
        type: 'surface.expired',
        sender: 'system',
        ts: new Date(now).toISOString(),
        payload: { claim_id: claim.claim_id, haid: claim.haid, expired_at: claim.expires_at },
      }));
  },

  wakeAt(state) {
    const times = Object.values(state.claims).map((c) => Date.parse(c.expires_at));
    return times.length > 0 ? Math.min(...times) : null;
  },
};
