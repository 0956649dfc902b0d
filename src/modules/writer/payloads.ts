import * as z from 'zod';
import { Identity, RunId, SectionId } from './ids';

/**
 * Seed 002's v0 message contracts as zod schemas: the payloads of the run's
 * Wire types (`catalogue.ts`), one schema per concept. Ops are RFC 6902 JSON
 * Patch over one section's JSON form (`document.ts`).
 */

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);
const Pointer = z
  .string()
  .max(512)
  .regex(/^(\/([^~]|~[01])*)*$/, 'path must be a JSON Pointer (RFC 6901), e.g. "/body"')
  .refine((p) => !p.split('/').some((part) => UNSAFE.has(part)), {
    message: 'path may not name __proto__, constructor or prototype',
  });
const Json = z.json();

/** One RFC 6902 operation. */
export const PatchOp = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ op: z.literal('add'), path: Pointer, value: Json }),
    z.strictObject({ op: z.literal('remove'), path: Pointer }),
    z.strictObject({ op: z.literal('replace'), path: Pointer, value: Json }),
    z.strictObject({ op: z.literal('move'), from: Pointer, path: Pointer }),
    z.strictObject({ op: z.literal('copy'), from: Pointer, path: Pointer }),
    z.strictObject({ op: z.literal('test'), path: Pointer, value: Json }),
  ],
  { error: 'op must be one of add, remove, replace, move, copy, test (RFC 6902)' },
);
export type PatchOp = z.infer<typeof PatchOp>;

const Markdown = z.string().min(1, 'markdown must not be empty').max(16_384);
export const SectionState = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'state is a lower-case word such as "draft" or "final"');

/** A section as a run is created with it. */
export const SectionInit = z.strictObject({
  id: SectionId,
  title: z.string().max(200).optional(),
  body: z.string().max(65_536).optional(),
  state: SectionState.optional(),
});

export const RunCreated = z.object({
  run_id: RunId,
  title: z.string().max(200).optional(),
  sections: z
    .array(SectionInit)
    .min(1, 'a run needs at least one section')
    .max(64)
    .refine((list) => new Set(list.map((s) => s.id)).size === list.length, {
      message: 'section ids must be distinct',
    }),
  writer: Identity,
  conductors: z.array(Identity).max(16).default([]),
  workers: z.array(Identity).max(256).default([]),
});

const Proposal = z.boolean({ error: 'proposal must be true or false' });
const SourceWorker = Identity.optional();

export const WriterApplyPatch = z.object({
  run_id: RunId,
  section: SectionId,
  ops: z.array(PatchOp).min(1, 'ops must hold at least one operation').max(256),
  proposal: Proposal,
  source_worker_id: SourceWorker,
});

export const WriterAppendNote = z.object({
  run_id: RunId,
  section: SectionId,
  markdown: Markdown,
  proposal: Proposal,
  source_worker_id: SourceWorker,
});

export const WriterMarkSectionState = z.object({
  run_id: RunId,
  section: SectionId,
  state: SectionState,
  proposal: Proposal.optional(),
});

export const WriterAcceptProposal = z.object({
  run_id: RunId,
  proposal_id: z.string().min(1).max(128),
});

export const WriterDeclineProposal = z.object({
  run_id: RunId,
  proposal_id: z.string().min(1).max(128),
  reason: z.string().max(2000).optional(),
});

export const WriterRequestRevision = z.object({
  run_id: RunId,
  section: SectionId.optional(),
  markdown: Markdown,
});

export const ConductorRequest = z.object({
  run_id: RunId,
  kind: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'kind is a lower-case name'),
  payload: z.record(z.string(), Json).default({}),
  correlation: z.string().max(256).optional(),
});

export const WriterAck = z.object({
  run_id: RunId,
  message_id: z.string(),
  revision: z.int().min(0),
  outcome: z.enum(['canon', 'proposal', 'merged', 'declined', 'delivered']),
  proposal_id: z.string().optional(),
});
export type WriterAck = z.infer<typeof WriterAck>;

export const WriterReject = z.object({
  run_id: RunId,
  message_id: z.string(),
  reason: z.string(),
  revision: z.int().min(0),
});
export type WriterReject = z.infer<typeof WriterReject>;

export const RunMail = z.object({
  run_id: RunId,
  to: z.array(Identity).min(1),
  message_id: z.string(),
  message_type: z.string(),
  from: z.string(),
  revision: z.int().min(0),
  message: z.record(z.string(), Json),
});

/** A trace Wire: progress or a finding, told, never obeyed. */
export const WorkerTrace = z.object({
  run_id: RunId,
  worker_id: Identity.optional(),
  message: z.string().max(4000).optional(),
  pct: z.number().min(0).max(100).optional(),
});
