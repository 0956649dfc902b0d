import * as z from 'zod';
import { storedCanonicalJson } from './canonical-json';
import { type Failure, type FieldIssue, fail } from './failure';
import { identifierProblem, payloadIdentifierIssues } from './identifier';
import { AnyPayload, referenceIssues } from './payloads';
import { Signature } from './signature';
import { StreamId } from './stream-id';
import { WireType } from './wire-type';
import { SENDER_PATTERN, WIRE_ID_PATTERN } from './wire11-fast-path';

/**
 * The Wire envelopes of seed 000 ("Stream-Enabled Wire Envelope"). How a body
 * becomes a Wire — Wire 1.1 as is, Wire 1.0 upgraded, or a foreign dialect —
 * is in `dialects/`; this file holds the shapes every dialect decodes into.
 */

export const WireId = z
  .string()
  .regex(
    WIRE_ID_PATTERN,
    'wire_id must be 1-128 characters: letters, digits, . _ : - (starting with a letter or digit)',
  );
export const Sender = z
  .string()
  .regex(
    SENDER_PATTERN,
    'sender must be 1-128 characters such as "agent:quinn-03", "human:ana" or "system"',
  );
/** A Wire's `ts`: ISO 8601 with an offset. */
export const WireTs = z.iso.datetime({ offset: true, error: 'ts must be an ISO 8601 date-time' });
/** `correlation_id` / `causation_id`: free-form, but held to the identifier rule. */
const Ref = z
  .string()
  .min(1)
  .max(256)
  .superRefine((value, ctx) => {
    const problem = identifierProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullable()
  .optional();

const Common = {
  type: WireType,
  sender: Sender,
  ts: WireTs,
  payload: AnyPayload,
};

/** Wire 1.0: the original envelope, without stream fields. */
export const Wire10Input = z.strictObject({
  wire: z.literal('1.0'),
  ...Common,
  // Tolerated so a 1.0 producer can name its stream; must match the path.
  stream_id: StreamId.optional(),
});

/** Wire 1.1 as a client sends it: `stream_seq` is optional (an expectation). */
export const Wire11Input = z.strictObject({
  wire: z.literal('1.1'),
  wire_id: WireId,
  stream_id: StreamId,
  stream_seq: z.int().min(1).optional(),
  correlation_id: Ref,
  causation_id: Ref,
  ...Common,
  /** The sender's Ed25519 signature (`signature.ts`); required once it has registered a key. */
  sig: Signature.optional(),
});

/** What `wire` says when it names no version this server reads. */
export const WIRE_VERSION_MESSAGE =
  'wire must be "1.1" (or "1.0" for an envelope without stream fields)';

export const WireInput = z.discriminatedUnion('wire', [Wire10Input, Wire11Input], {
  error: WIRE_VERSION_MESSAGE,
});

/** A Wire as stored, anchored to HCS and served: every field present. */
export const Wire = z.strictObject({
  wire: z.literal('1.1'),
  wire_id: WireId,
  stream_id: StreamId,
  stream_seq: z.int().min(1),
  correlation_id: z.string().nullable(),
  causation_id: z.string().nullable(),
  ...Common,
  sig: Signature.optional(),
});
export type Wire = z.infer<typeof Wire>;

/**
 * A Wire as its stream stored it: the envelope and when the coordinator
 * received it. The same value travels from the stream to its topic (see
 * ARCHITECTURE.md, "A Wire's names", for the others).
 */
export interface StoredWire extends Wire {
  received_at: string;
}

/** A Wire ready to append: everything but the sequence number. */
export type Draft = Omit<Wire, 'stream_seq'>;

/**
 * A Wire 1.1 body's envelope as a Draft: `correlation_id` and `causation_id`
 * left out are null. `P` lets a client build a body whose payload it has not
 * checked as JSON yet (the server does).
 */
export function draftOf<P = Draft['payload']>(
  input: Omit<Draft, 'wire' | 'correlation_id' | 'causation_id' | 'payload'> & {
    correlation_id?: string | null | undefined;
    causation_id?: string | null | undefined;
    payload: P;
  },
): Omit<Draft, 'payload'> & { payload: P } {
  const draft: Omit<Draft, 'payload'> & { payload: P } = {
    wire: '1.1',
    wire_id: input.wire_id,
    stream_id: input.stream_id,
    correlation_id: input.correlation_id ?? null,
    causation_id: input.causation_id ?? null,
    type: input.type,
    sender: input.sender,
    ts: input.ts,
    payload: input.payload,
  };
  // Only when signed: an unsigned Wire keeps the exact bytes it had before signatures.
  if (input.sig !== undefined) draft.sig = input.sig;
  return draft;
}

/** A Wire's payload: a JSON object. */
export type Payload = Wire['payload'];

/** The receipt an append returns. */
export interface Receipt {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  received_at: string;
}

/** zod's issues as field issues, paths dotted (`payload.task_id`), `(envelope)` for the root. */
export function fieldIssues(error: z.ZodError, prefix: (string | number)[] = []): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.') || '(envelope)',
    message: issue.message,
  }));
}

/** The `invalid-wire` failure: its detail lists each `path: message`. */
export function invalidWire(issues: FieldIssue[]): Failure {
  const detail = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return fail('invalid-wire', detail, { errors: issues });
}

/**
 * Where payload schemas come from, by Wire type: `undefined` for a type with
 * no schema. The append path passes the registry's, built from every
 * protocol module's type catalogue (`kernel/append.ts`).
 */
export type PayloadCatalogue = (type: string) => z.ZodType | undefined;

/** No payload schemas: any JSON object (artifact references still need their hash). */
export const noPayloadSchemas: PayloadCatalogue = () => undefined;

/**
 * The one place a payload meets its schema. A type the catalogue knows is
 * checked against its schema; then every payload, whatever its type: an
 * `artifact_ref` travels with its `sha256` and no inline content, and ids
 * follow the identifier rule. Issues name Wire paths (`payload.task_id`).
 */
export function payloadIssues(
  type: string,
  payload: Payload,
  catalogue: PayloadCatalogue = noPayloadSchemas,
): FieldIssue[] | null {
  const schema = catalogue(type);
  if (schema !== undefined) {
    const parsed = schema.safeParse(payload);
    if (!parsed.success) return fieldIssues(parsed.error, ['payload']);
  }
  // What every payload shares, whatever its type and whether a module knows it.
  const issues = [...referenceIssues(payload), ...payloadIdentifierIssues(payload)];
  return issues.length > 0 ? issues : null;
}

/** The HCS message body of a Wire: canonical JSON of the full envelope. */
export function wireMessage(wire: Wire): string {
  return storedCanonicalJson(wire);
}

/** Content identity used for idempotent replay (ignores server-assigned seq). */
export function draftIdentity(draft: Draft): string {
  return storedCanonicalJson(draft);
}
