import type { TypeSpec } from '../../kernel/module';
import {
  SurfaceClaimPayload,
  SurfaceExpiredPayload,
  SurfaceForceReleasedPayload,
  SurfaceRefusedPayload,
  SurfaceReleasedPayload,
  SurfaceRenewedPayload,
} from './surfaces/payloads';

/**
 * Seed 001's Wire types, each once: surface claims on `surfaces:<ws>`
 * streams, the workspace's mechanisms on `workspace:<ws>` streams.
 */
export const HEIMDALL_TYPES: Record<string, TypeSpec> = {
  'surface.claim': { payload: SurfaceClaimPayload },
  'surface.refused': { payload: SurfaceRefusedPayload },
  'surface.renewed': { payload: SurfaceRenewedPayload },
  'surface.released': { payload: SurfaceReleasedPayload },
  'surface.force_released': { payload: SurfaceForceReleasedPayload, orchestration: true },
  'surface.expired': { payload: SurfaceExpiredPayload },
};

/** Wire-id prefixes the module derives: refusals and expiries of claims. */
export const HEIMDALL_DERIVED_IDS = ['surfref', 'surfexp'];
