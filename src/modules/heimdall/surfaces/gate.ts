import type { AppendResult } from '../../../kernel/kind';
import { type Draft, type Failure, fail } from '../../../protocol';
import { surfacesStream } from '../identity';
import { DEFAULT_TTL_MINUTES } from './payloads';

/**
 * The collision gate as other modules reach it, through the kernel's seams
 * only: a kind's `reserve` hook (kernel/kind.ts) appends the claim Draft
 * built here to `surfaces:<workspace>` with `ctx.appendTo`, awaited before
 * its own decision, and reads the gate's verdict from the receipt with
 * `gateVerdict`. A refusal is then the kind's Failure (409
 * `surface-collision`, naming the holder); a granted claim is its Hold. Its
 * `cancel` hook gives the claim back with `releaseDraft` when its own
 * command is not stored. Use a deterministic `wire_id` (e.g. derived from
 * the command's) so a retried command replays its claim instead of
 * claiming twice.
 */

export interface GateClaim {
  workspace: string;
  haid: string;
  surfaces: string[];
  task: string;
  mode?: 'exclusive' | 'shared';
  ttl_minutes?: number;
  /** The claim's wire_id, which becomes its claim_id. */
  wire_id: string;
  /** The token subject acting (`haid` must be it or `<it>/<client>`), or `system`. */
  sender: string;
  now: number;
  correlation_id?: string | null;
  causation_id?: string | null;
}

export function claimDraft(claim: GateClaim): Draft {
  return {
    wire: '1.1',
    wire_id: claim.wire_id,
    stream_id: surfacesStream(claim.workspace),
    correlation_id: claim.correlation_id ?? null,
    causation_id: claim.causation_id ?? null,
    type: 'surface.claim',
    sender: claim.sender,
    ts: new Date(claim.now).toISOString(),
    payload: {
      haid: claim.haid,
      surfaces: claim.surfaces,
      task: claim.task,
      task_ref: `${claim.task}@${claim.haid}`,
      mode: claim.mode ?? 'exclusive',
      ttl_minutes: claim.ttl_minutes ?? DEFAULT_TTL_MINUTES,
    },
  };
}

export interface Granted {
  ok: true;
  claim_id: string;
  expires_at: string | null;
  replay: boolean;
}

/** The gate's answer to an appended claim: granted, or the `surface-collision` Failure. */
export function gateVerdict(
  result: AppendResult,
  claim: Pick<GateClaim, 'surfaces' | 'task'>,
): Granted | Failure {
  if (!result.ok) return result;
  const r = result.receipt;
  if (r.outcome === 'refused') {
    const holder = String(r.holder);
    const surfaces = JSON.parse(String(r.holder_surfaces)) as string[];
    return fail(
      'surface-collision',
      `[${claim.surfaces.join(', ')}] for "${claim.task}" overlaps the live claim of "${holder}" on [${surfaces.join(', ')}] for task "${r.holder_task}" until ${r.holder_expires_at}`,
      {
        extra: {
          holder,
          surfaces,
          task: String(r.holder_task),
          claim_id: String(r.holder_claim_id),
          expires_at: String(r.holder_expires_at),
          refusal_wire_id: r.wire_id,
        },
      },
    );
  }
  return {
    ok: true,
    claim_id: String(r.claim_id ?? r.wire_id),
    expires_at: typeof r.expires_at === 'string' ? r.expires_at : null,
    replay: result.replay,
  };
}

/** Gives a claim back (the `cancel` of a kind whose command was not stored). */
export function releaseDraft(o: {
  workspace: string;
  claim_id: string;
  haid: string;
  sender: string;
  wire_id: string;
  now: number;
  reason?: string;
}): Draft {
  return {
    wire: '1.1',
    wire_id: o.wire_id,
    stream_id: surfacesStream(o.workspace),
    correlation_id: null,
    causation_id: o.claim_id,
    type: 'surface.released',
    sender: o.sender,
    ts: new Date(o.now).toISOString(),
    payload: { claim_ids: [o.claim_id], haid: o.haid, ...(o.reason ? { reason: o.reason } : {}) },
  };
}
