import * as z from 'zod';
import { Haid } from '../identity';
import { opensAField } from './capsules';

/** Workspace Wire payloads (stream `workspace:<ws>`), and the names they use. */

export const Name = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'ids are 1-64 characters: letters, digits, . _ - (starting with a letter or digit)',
  );
export const Role = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'roles are lower-case names');
export const Tokens = z.int().min(0).max(100_000_000);
const Text = (max: number) => z.string().max(max);

export const SymbolSetPayload = z.looseObject({
  id: Name,
  value: z.string().min(1).max(2000),
  force: z.boolean().optional(),
  haid: Haid,
});

/** A capsule field: its lines after the first never start like a field (`where: …`). */
const CapsuleText = (min: number) =>
  z
    .string()
    .min(min)
    .max(1000)
    .refine(
      (v) => !opensAField(v),
      'a line after the first may not start with "what:", "where:", "decision:", "gotcha:" or "depends:" (the capsule file would read it as that field)',
    );

export const CapsuleFields = {
  what: CapsuleText(1),
  where: CapsuleText(0).optional(),
  decision: CapsuleText(0).optional(),
  gotcha: CapsuleText(0).optional(),
  depends: z.array(Name).max(50).optional(),
};
export const CapsuleWrittenPayload = z.looseObject({ id: Name, ...CapsuleFields, haid: Haid });

export const BlackboardSetPayload = z.looseObject({
  key: Name,
  value: z.string().max(4096),
  haid: Haid,
});

/** A ledger line: the body `POST …/ledger/log` takes and the payload it stores. */
export const LedgerLogFields = {
  role: Role,
  kind: Name,
  tokens: Tokens,
  msg_id: z.string().min(1).max(200).optional(),
  haid: Haid.optional(),
};
export const LedgerLoggedPayload = z.looseObject(LedgerLogFields);
export const LedgerBaselinePayload = z.looseObject({ role: Role, tokens: Tokens, haid: Haid });

export const BriefBuiltPayload = z.looseObject({
  task: z.string().min(1).max(200),
  spec: z.string().min(1).max(4000),
  symbols: z.array(Name).max(100),
  capsules: z.array(Name).max(100),
  invariants: z.string().max(1000).nullable(),
  role: Role,
  tokens: Tokens,
  haid: Haid,
});

export const DecisionPayload = z.looseObject({
  title: z.string().min(1).max(300),
  body: z.string().min(1).max(20_000),
  haid: Haid,
});

export const ConflictPayload = z.looseObject({
  id: Name,
  title: z.string().min(1).max(300),
  surfaces: z.array(z.string().min(1).max(256)).min(1).max(64),
  displaced_haid: z.string().max(200).optional(),
  overriding_intent: Text(4000).optional(),
  displaced_intent: Text(4000).optional(),
  haid: Haid,
});

export const MessageAcceptedPayload = z.looseObject({
  message: z.looseObject({ type: z.string(), msg_id: z.string() }),
  haid: z.string(),
});
export const MessageRejectedPayload = z.looseObject({
  msg_id: z.string().nullable(),
  errors: z.array(z.string()),
  haid: Haid,
});

/** Lines of an imported `protocol.log`, in order (an import writes one part per ~6 KB). */
export const PlanningImportedPayload = z.looseObject({
  log: z.string().max(8000),
  part: z.int().min(1).max(100_000),
  parts: z.int().min(1).max(100_000),
  haid: Haid,
});
