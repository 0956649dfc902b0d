import type { TypeSpec } from '../../kernel/module';
import * as P from './payloads';

/**
 * Seed 002's type catalogue. Actor messages travel as Wires on the run's
 * stream under dotted names; the HTTP API speaks the seed's names
 * (`WriterApplyPatch` …), mapped here once. Verdicts (`writer.ack`,
 * `writer.reject`) and mailbox copies (`run.mail`) are written by the run
 * itself, never by a client.
 */
export const ACTOR_MESSAGES = {
  WriterApplyPatch: 'writer.apply_patch',
  WriterAppendNote: 'writer.append_note',
  WriterMarkSectionState: 'writer.mark_section_state',
  WriterAcceptProposal: 'writer.accept_proposal',
  WriterDeclineProposal: 'writer.decline_proposal',
  WriterRequestRevision: 'writer.request_revision',
  ConductorRequest: 'conductor.request',
} as const;
export type ActorMessageName = keyof typeof ACTOR_MESSAGES;
export type ActorWireType = (typeof ACTOR_MESSAGES)[ActorMessageName];

/** The actor message types that change a section (canon or a proposal). */
export const SECTION_CHANGES: readonly string[] = [
  ACTOR_MESSAGES.WriterApplyPatch,
  ACTOR_MESSAGES.WriterAppendNote,
  ACTOR_MESSAGES.WriterMarkSectionState,
];

export const ACTOR_TYPES: ReadonlySet<string> = new Set(Object.values(ACTOR_MESSAGES));
export const VERDICT_TYPES = { ack: 'writer.ack', reject: 'writer.reject' } as const;
export const MAIL_TYPE = 'run.mail';
export const RUN_CREATED = 'run.created';
export const TRACE_TYPES = ['worker.progress', 'worker.finding'] as const;

/** Derived wire-id prefixes: a verdict is `verdict:<message_id>`, a mail `mail:<message_id>`. */
export const WRITER_DERIVED_IDS = ['verdict', 'mail'] as const;

export const WRITER_TYPES: Record<string, TypeSpec> = {
  [RUN_CREATED]: { payload: P.RunCreated, status: 'open' },
  [ACTOR_MESSAGES.WriterApplyPatch]: { payload: P.WriterApplyPatch },
  [ACTOR_MESSAGES.WriterAppendNote]: { payload: P.WriterAppendNote },
  [ACTOR_MESSAGES.WriterMarkSectionState]: { payload: P.WriterMarkSectionState },
  [ACTOR_MESSAGES.WriterAcceptProposal]: { payload: P.WriterAcceptProposal },
  [ACTOR_MESSAGES.WriterDeclineProposal]: { payload: P.WriterDeclineProposal },
  [ACTOR_MESSAGES.WriterRequestRevision]: { payload: P.WriterRequestRevision },
  [ACTOR_MESSAGES.ConductorRequest]: { payload: P.ConductorRequest },
  [VERDICT_TYPES.ack]: { payload: P.WriterAck },
  [VERDICT_TYPES.reject]: { payload: P.WriterReject },
  [MAIL_TYPE]: { payload: P.RunMail },
  'worker.progress': { payload: P.WorkerTrace },
  'worker.finding': { payload: P.WorkerTrace },
};
