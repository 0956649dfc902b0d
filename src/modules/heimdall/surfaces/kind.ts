import { defineUnconfiguredKind, type ReceiptFields } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { surfacesDecider } from './decider';
import { isLive, type SurfaceClaim, type SurfacesState } from './state';

/** What `GET …/claims` and the read model show: live claims, oldest first. */
export function liveClaims(state: SurfacesState, now: number): SurfaceClaim[] {
  return Object.values(state.claims)
    .filter((claim) => isLive(claim, now))
    .sort(
      (a, b) => a.claimed_at.localeCompare(b.claimed_at) || a.claim_id.localeCompare(b.claim_id),
    );
}

export function claimJson(claim: SurfaceClaim) {
  const { renewals: _r, ...rest } = claim;
  return rest;
}

/**
 * The `surfaces:<workspace>` stream kind. Its receipt tells the caller how
 * the gate decided: `outcome` `granted` (with `claim_id`, `expires_at`) or
 * `refused` (with the holder's haid, claim, globs as JSON, task and expiry),
 * so a route or another kind's `reserve` hook reads the verdict from the
 * append's answer, in one round trip.
 */
export const surfacesKind = defineUnconfiguredKind<SurfacesState>({
  name: 'surfaces',
  decider: surfacesDecider,
  hooks: {
    receipt(state, wire): ReceiptFields | null {
      if (wire.type === 'surface.refused') {
        const r = state.refusals.at(-1);
        if (!r) return null;
        return {
          outcome: 'refused',
          holder: r.holder,
          holder_claim_id: r.holder_claim_id,
          holder_surfaces: JSON.stringify(r.holder_surfaces),
          holder_task: r.holder_task,
          holder_expires_at: r.holder_expires_at,
        };
      }
      if (wire.type === 'surface.claim') {
        return {
          outcome: 'granted',
          claim_id: wire.wire_id,
          expires_at: ownValue(state.claims, wire.wire_id)?.expires_at ?? null,
        };
      }
      return null;
    },
    view: (state, now) => ({
      claims: liveClaims(state, now).map(claimJson),
      refusals: state.refusals,
      refused: state.refused,
      ended: state.ended,
    }),
  },
});
