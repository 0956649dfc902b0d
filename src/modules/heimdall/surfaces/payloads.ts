import * as z from 'zod';
import { Haid } from '../identity';

/** Surface-claim Wire payloads (stream `surfaces:<workspace>`). */

export const MAX_SURFACES = 32;
export const MAX_TTL_MINUTES = 24 * 60;
export const DEFAULT_TTL_MINUTES = 30;

export const Surfaces = z
  .array(z.string().min(1).max(256))
  .min(1, 'surfaces needs at least one glob')
  .max(MAX_SURFACES, `a claim names at most ${MAX_SURFACES} surfaces`);
export const Task = z.string().min(1).max(200);
/** Minutes, fractions allowed (0.05 = 3 s, the least). */
export const TtlMinutes = z
  .number()
  .min(0.05, 'ttl_minutes is at least 0.05 (3 seconds)')
  .max(MAX_TTL_MINUTES, `ttl_minutes is at most ${MAX_TTL_MINUTES}`);
export const ClaimMode = z.enum(['exclusive', 'shared']);
export type ClaimMode = z.infer<typeof ClaimMode>;

export const SurfaceClaimPayload = z.looseObject({
  haid: Haid,
  surfaces: Surfaces,
  task: Task,
  task_ref: z.string().min(1).max(400),
  mode: ClaimMode,
  ttl_minutes: TtlMinutes,
});

export const SurfaceRenewedPayload = z.looseObject({
  claim_id: z.string().min(1),
  haid: Haid,
  ttl_minutes: TtlMinutes,
});

export const SurfaceReleasedPayload = z.looseObject({
  claim_ids: z.array(z.string().min(1)).min(1).max(500),
  haid: Haid,
});

export const SurfaceForceReleasedPayload = z.looseObject({
  claim_id: z.string().min(1),
  reason: z.string().min(1, 'force-release needs a reason').max(1000),
});

export const SurfaceExpiredPayload = z.looseObject({ claim_id: z.string().min(1) });

export const SurfaceRefusedPayload = z.looseObject({
  haid: Haid,
  surfaces: Surfaces,
  task: Task,
  holder: z.string(),
  holder_claim_id: z.string(),
});
