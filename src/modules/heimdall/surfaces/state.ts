import type { ClaimMode } from './payloads';

/** What the `surfaces:<workspace>` decider holds (./decider.ts), and its Wire types. */

export interface SurfaceClaim {
  claim_id: string;
  haid: string;
  surfaces: string[];
  task: string;
  task_ref: string;
  mode: ClaimMode;
  claimed_at: string;
  expires_at: string;
  renewals: number;
}

export interface SurfaceRefusal {
  at: string;
  haid: string;
  surfaces: string[];
  task: string;
  holder: string;
  holder_claim_id: string;
  holder_surfaces: string[];
  holder_task: string;
  holder_expires_at: string;
}

export interface SurfacesState {
  claims: Record<string, SurfaceClaim>;
  /** The latest refusals (newest last), for the receipt and the dashboard. */
  refusals: SurfaceRefusal[];
  refused: number;
  /** Claims that ended, by how: counts only. */
  ended: { released: number; expired: number; force_released: number };
}

export const KEEP_REFUSALS = 20;

export const SURFACE_TYPES = [
  'surface.claim',
  'surface.refused',
  'surface.renewed',
  'surface.released',
  'surface.force_released',
  'surface.expired',
] as const;

export function isLive(claim: SurfaceClaim, now: number): boolean {
  return Date.parse(claim.expires_at) > now;
}
