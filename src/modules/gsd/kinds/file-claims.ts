import { derivedWireId } from '../../../kernel/derived-id';
import type { Effect, Hold, KindHooks, ReserveContext } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { type Draft, type Failure, fail, type Wire } from '../../../protocol';
import { claimDraft, gateVerdict, releaseDraft } from '../../heimdall/surfaces/gate';
import { GSD_KIND, wireType } from '../catalogue';
import type { GsdState } from './state';

/**
 * `file:claimed` / `file:released` through seed 001's surface-claim gate
 * (ARCHITECTURE.md, "Heimdall"): the project id is the workspace id, the
 * path is the claimed surface, the event's sender is the claim's haid. The
 * claim is made in the kind's `reserve` hook, before the event is decided, so
 * a path held by anyone — through GSD or through `/v1/workspaces/{ws}/claims`
 * or MCP — refuses the event, naming the holder; a release is a durable
 * effect on the gate. The gate's claim id is derived from the event's wire_id,
 * so a retried event replays its claim and `evolve` knows the id without
 * storing it.
 */

/** Gate claims made for GSD events last the gate's longest TTL unless released. */
const TTL_MINUTES = 24 * 60;

export function workspaceOf(streamId: string): string {
  return streamId.slice(GSD_KIND.length + 1);
}

export function gateClaimId(eventWireId: string): string {
  return derivedWireId('gsdclaim', eventWireId);
}

function pathOf(draft: Pick<Draft, 'payload'>): string {
  const path = draft.payload.path;
  return typeof path === 'string' ? path : '';
}

export async function reserveFile(
  command: Draft,
  state: GsdState,
  ctx: ReserveContext<null>,
): Promise<Hold | Failure | null> {
  if (command.type !== wireType('file:claimed')) return null;
  const path = pathOf(command);
  if (ownValue(state.claims, path)?.holder === command.sender || ctx.isReplay()) return null;
  const workspace = workspaceOf(command.stream_id);
  const plan = typeof command.payload.plan === 'string' ? command.payload.plan : 'gsd';
  const claim = {
    workspace,
    haid: command.sender,
    surfaces: [path],
    task: plan,
    ttl_minutes: TTL_MINUTES,
    wire_id: gateClaimId(command.wire_id),
    sender: command.sender,
    now: ctx.now,
    causation_id: command.wire_id,
  };
  const verdict = gateVerdict(
    await ctx.appendTo(claimDraft(claim).stream_id, claimDraft(claim)),
    claim,
  );
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
export const cancelFile: NonNullable<KindHooks<GsdState, null>['cancel']> = (hold, command, now) =>
  release(
    String(hold.workspace),
    String(hold.claim_id),
    String(hold.haid),
    derivedWireId('gsdunclaim', command.wire_id),
    now,
  );

/** `file:released` gives the gate claim back (durable, through the effect outbox). */
export function releaseEffects(before: GsdState, wire: Wire): Effect[] {
  if (wire.type !== wireType('file:released')) return [];
  const held = ownValue(before.claims, pathOf(wire));
  if (!held?.claimId) return [];
  const now = Date.parse(wire.ts);
  return [
    release(
      workspaceOf(wire.stream_id),
      held.claimId,
      held.holder,
      derivedWireId('gsdunclaim', wire.wire_id),
      Number.isNaN(now) ? 0 : now,
    ),
  ];
}
