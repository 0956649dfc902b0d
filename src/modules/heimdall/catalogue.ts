import type { TypeSpec } from '../../kernel/module';
import {
  SurfaceClaimPayload,
  SurfaceExpiredPayload,
  SurfaceForceReleasedPayload,
  SurfaceRefusedPayload,
  SurfaceReleasedPayload,
  SurfaceRenewedPayload,
} from './surfaces/payloads';
import {
  BlackboardSetPayload,
  BriefBuiltPayload,
  CapsuleWrittenPayload,
  ConflictPayload,
  DecisionPayload,
  LedgerBaselinePayload,
  LedgerLoggedPayload,
  MessageAcceptedPayload,
  MessageRejectedPayload,
  PlanningImportedPayload,
  SymbolSetPayload,
} from './workspace/payloads';

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
  'symbol.set': { payload: SymbolSetPayload },
  'capsule.written': { payload: CapsuleWrittenPayload },
  'blackboard.set': { payload: BlackboardSetPayload },
  'ledger.logged': { payload: LedgerLoggedPayload },
  'ledger.baseline': { payload: LedgerBaselinePayload },
  'brief.built': { payload: BriefBuiltPayload },
  'decision.appended': { payload: DecisionPayload },
  'conflict.raised': { payload: ConflictPayload },
  'message.accepted': { payload: MessageAcceptedPayload },
  'message.rejected': { payload: MessageRejectedPayload },
  'planning.imported': { payload: PlanningImportedPayload },
};

/** The wire-id prefix of a `.planning` import's items (archive digest, item index). */
export const IMPORT_ID = 'hdimport';

/**
 * Wire-id prefixes the module derives: refusals and expiries of claims, a
 * brief's ledger line, a conflict's decisions entry, an escalation, the
 * items of an import.
 */
export const HEIMDALL_DERIVED_IDS = [
  'surfref',
  'surfexp',
  'brieflog',
  'conflictlog',
  'msgesc',
  IMPORT_ID,
];
