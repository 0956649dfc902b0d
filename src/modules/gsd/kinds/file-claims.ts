import { derivedWireId } from '../../../kernel/derived-id';
import type { Effect, Hold, KindHooks, ReserveContext } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { type Draft, type Failure, fail, type Wire } from '../../../protocol';
import { claimDraft, gateVerdict, releaseDraft } from '../../heimdall/surfaces/gate';
import { GSD_KIND, wireType } from '../catalogue';
import { fileSurface } from '../file-surface';
import type { GsdState } from './state';

/**
 * `file:claimed` / `file:released` through seed 001's surface-claim gate
 * (ARCHITECTURE.md, "Heimdall"): the project id is the workspace id, the
 * path (as a literal glob, `file-surface.ts`) is the claimed surface, the
 * event's sender is the claim's haid. The claim is made in the kind's
 * `reserve` hook, before the event is decided, so a path held by anyone —
 * through GSD or through `/v1/workspaces/{ws}/claims` or MCP — refuses the
 * event, naming the holder; a release is a durable effect on the gate.
 *
 * Every stored `file:claimed` has its own gate claim, even a re-claim by the
 * holder: the hook cannot know whether an earlier claim of the same path in
 * the same batch, or in a racing request, will be stored first, so it never
 * skips one; when the re-claim is stored, the claim it replaces is given back
 * (`releaseEffects`). The gate's claim id is derived from the event's wire_id
 * and correlation_id (a keyed request's digest, `routes/events.ts`), so a
 * retried event replays its claim, a different request under the same
 * Idempotency-Key makes a new one, and `evolve` knows the id without storing it.
 */

/** Gate claims made for GSD events last the gate's longest TTL unless released. */
const TTL_MINUTES = 24 * 60;

export function workspaceOf(streamId: string): string {
  return streamId.slice(GSD_KIND.length + 1);
}

/** The gate claim of a `file:claimed` event (a keyed request's digest included). */
export function gateClaimId(event: Pick<Draft, 'wire_id' | 'correlation_id'>): string {
  return event.correlation_id === null
    ? derivedWireId('gsdclaim', event.wire_id)
    : derivedWireId('gsdclaim', event.wire_id, event.correlation_id);
}

/** The wire_id of the Wire that gives a gate claim back (each claim is given back once). */
function unclaimId(claimId: string): string {
  return derivedWireId('gsdunclaim', claimId);
}

function pathOf(draft: Pick<Draft, 'payload'>): string {
  const path = draft.payload.path;
  return typeof path === 'string' ? path : '';
}

export async function reserveFile(
  command: Draft,
  _state: GsdState,
  ctx: ReserveContext<null>,
): Promise<Hold | Failure | null> {
  if (command.type !== wireType('file:claimed') || ctx.isReplay()) return null;
  const path = pathOf(command);
  const surface = fileSurface(path);
  // The catalogue refuses such paths first; a Wire that skipped it is refused here.
  if (!surface.ok) return fail('invalid-wire', `path "${path}": ${surface.reason}`);
  const workspace = workspaceOf(command.stream_id);
  const plan = typeof command.payload.plan === 'string' ? command.payload.plan : 'gsd';
  const claim = {
    workspace,
    haid: command.sender,
    surfaces: [surface.glob],
    task: plan,
    ttl_minutes: TTL_MINUTES,
    wire_id: gateClaimId(command),
    sender: command.sender,
    now: ctx.now,
    causation_id: command.wire_id,
  };
  const verdict = gateVerdict(
    await ctx.appendTo(claimDraft(claim).stream_id, claimDraft(claim)),
    claim,
  );
  // This very request was tried before, refused, and its claim given back (the
  // gate keeps that claim's id, with another ts): it is decided on the
  // project's own claims, so it meets the same refusal as the first time.
  if (!verdict.ok && verdict.code === 'wire-id-conflict') return null;
  if (verdict.ok) return { ok: true, claim_id: verdict.claim_id, workspace, haid: command.sender };
  if (verdict.code !== 'surface-collision') return verdict;
  const holder = String(verdict.extra?.holder ?? 'another agent');
  return fail('file-claimed', `path "${path}" is claimed by ${holder}: ${verdict.detail}`, {
    extra: { ...verdict.extra, holder, path },
  });
}

function release(workspace: string, claimId: string, haid: string, wireId: string, now: number) {
  const draft = releaseDraft({
    workspace,
    claim_id: claimId,
    haid,
    sender: 'system',
    wire_id: wireId,
    now,
  });
  return { target: draft.stream_id, draft };
}

/** A claim made for an event that was not stored is given back. */
export const cancelFile: NonNullable<KindHooks<GsdState, null>['cancel']> = (hold, _command, now) =>
  release(
    String(hold.workspace),
    String(hold.claim_id),
    String(hold.haid),
    unclaimId(String(hold.claim_id)),
    now,
  );

/**
 * Gate claims given back because of `wire` (durable, through the effect
 * outbox): `file:released` returns the path's claim; a re-claim by the holder
 * returns the claim it replaced (the path is held by the newer one).
 */
export function releaseEffects(before: GsdState, after: GsdState, wire: Wire): Effect[] {
  const path = pathOf(wire);
  const held = ownValue(before.claims, path);
  if (!held?.claimId) return [];
  const at = Date.parse(wire.ts);
  const now = Number.isNaN(at) ? 0 : at;
  const workspace = workspaceOf(wire.stream_id);
  if (wire.type === wireType('file:released')) {
    return [
      release(workspace, held.claimId, held.holder, derivedWireId('gsdunclaim', wire.wire_id), now),
    ];
  }
  if (wire.type !== wireType('file:claimed')) return [];
  const current = ownValue(after.claims, path);
  if (current?.holder !== held.holder || current.claimId === held.claimId) return [];
  return [release(workspace, held.claimId, held.holder, unclaimId(held.claimId), now)];
}
