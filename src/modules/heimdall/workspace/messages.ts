import * as z from 'zod';

/**
 * Mechanism 1, typed messages: the seed's six types, discriminated by
 * `type`, each referencing artifacts by id and never restating bodies.
 * Strict shapes: a field the type does not define (a pasted plan, say) is
 * an error, which is what keeps prose off the wire.
 */

export const PROTOCOL_VERSION = '2.0.0';
/** Where the static Worker holds the schema (built by src/modules/schemas.ts). */
export const MESSAGE_SCHEMA_ASSET = '/reference/schema/heimdall/message-schema.json';

export const MESSAGE_SCHEMA_ID = `https://wirestream.dev/schemas/heimdall/${PROTOCOL_VERSION}/message-schema.json`;

const Id = z.string().min(1).max(200);
const Common = { from: Id, msg_id: Id };
const Refs = z.array(Id).max(200);

export const TaskClaim = z.strictObject({
  type: z.literal('task_claim'),
  ...Common,
  task: Id,
  symbols: Refs.optional(),
  capsules: Refs.optional(),
});
export const TaskResult = z.strictObject({
  type: z.literal('task_result'),
  ...Common,
  task: Id,
  status: z.enum(['pass', 'fail', 'partial']),
  criteria: z.array(z.int()).max(200).optional(),
  commit: Id.optional(),
  capsule: Id.optional(),
});
export const GateReport = z.strictObject({
  type: z.literal('gate_report'),
  ...Common,
  gate_id: Id,
  status: z.enum(['pass', 'fail']),
  wave: z.union([z.int(), Id]).optional(),
  report_ref: z.string().min(1).max(1000).optional(),
});
export const Escalation = z.strictObject({
  type: z.literal('escalation'),
  ...Common,
  reason: z.string().min(1).max(2000),
  severity: z.enum(['blocker', 'warning', 'info']),
  refs: Refs.optional(),
});
export const Question = z.strictObject({
  type: z.literal('question'),
  ...Common,
  question: z.string().min(1).max(2000),
  refs: Refs.optional(),
});
export const Checkpoint = z.strictObject({
  type: z.literal('checkpoint'),
  ...Common,
  wave: z.union([z.int(), Id]),
  state: z.enum(['started', 'in_progress', 'complete', 'blocked']),
  capsules: Refs.optional(),
});

export const MESSAGE_TYPES = [
  'task_claim',
  'task_result',
  'gate_report',
  'escalation',
  'question',
  'checkpoint',
] as const;

export const Message = z.discriminatedUnion(
  'type',
  [TaskClaim, TaskResult, GateReport, Escalation, Question, Checkpoint],
  { error: `type must be one of ${MESSAGE_TYPES.join(', ')}` },
);
export type Message = z.infer<typeof Message>;

/** `heimdall-validate`'s answer: `{"valid":true,"errors":[]}` or the errors, one string each. */
export interface Validation {
  valid: boolean;
  errors: string[];
  message?: Message;
}

export function validateMessage(value: unknown): Validation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { valid: false, errors: ['(message): must be a JSON object'] };
  }
  const parsed = Message.safeParse(value);
  if (parsed.success) return { valid: true, errors: [], message: parsed.data };
  return {
    valid: false,
    errors: parsed.error.issues.map((i) => {
      const path = i.path.map(String).join('.') || '(message)';
      if (i.code === 'unrecognized_keys') return `${path}: unknown field(s) ${i.keys.join(', ')}`;
      return `${path}: ${i.message}`;
    }),
  };
}

let schema: Record<string, unknown> | null = null;

/** The published contract: JSON Schema draft-07, `$id` carrying the protocol version. */
export function messageSchema(): Record<string, unknown> {
  if (schema) return schema;
  const json = z.toJSONSchema(Message, { target: 'draft-7', io: 'input' }) as Record<
    string,
    unknown
  >;
  schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: MESSAGE_SCHEMA_ID,
    title: `Heimdall typed message (token-frugal protocol ${PROTOCOL_VERSION})`,
    description:
      'One of six message types, discriminated by `type`. Messages reference artifacts by id (symbols, capsules, report paths) and never restate their bodies.',
    version: PROTOCOL_VERSION,
    ...Object.fromEntries(Object.entries(json).filter(([k]) => k !== '$schema')),
  };
  return schema;
}
