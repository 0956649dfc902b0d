import * as z from 'zod';
import { loneSurrogatePath, storedCanonicalJson } from './canonical-json';
import { type Failure, type FieldIssue, fail, type Result } from './failure';
import { newWireId, reservedWireIdProblem } from './ids';
import { AnyPayload, isKnownType, PAYLOADS, referenceProblems } from './payloads';
import { StreamId, streamIdProblem } from './stream-id';
import { WireType } from './wire-type';
import { isPlainWire11, SENDER_PATTERN, WIRE_ID_PATTERN } from './wire11-fast-path';

/** The Wire envelopes of seed 000 ("Stream-Enabled Wire Envelope"). */

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
const Timestamp = z.iso.datetime({ offset: true, error: 'ts must be an ISO 8601 date-time' });
const Ref = z.string().min(1).max(256).nullable().optional();

const Common = {
  type: WireType,
  sender: Sender,
  ts: Timestamp,
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
});

export const WireInput = z.discriminatedUnion('wire', [Wire10Input, Wire11Input], {
  error: 'wire must be "1.1" (or "1.0" for an envelope without stream fields)',
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
});
export type Wire = z.infer<typeof Wire>;

/** A Wire ready to append: everything but the sequence number. */
export type Draft = Omit<Wire, 'stream_seq'>;

/** The receipt an append returns. */
export interface Receipt {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  received_at: string;
}

export interface ParsedAppend {
  draft: Draft;
  /** `stream_seq` the client expected its Wire to get, if it said. */
  expectedSeq: number | undefined;
  upgraded: boolean;
}

const LONE_SURROGATE_MESSAGE =
  'holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which canonical JSON (RFC 8785) cannot represent';

function issuesOf(error: z.ZodError, prefix: (string | number)[] = []): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.') || '(envelope)',
    message: issue.message,
  }));
}

function invalid(issues: FieldIssue[]): Failure {
  const detail = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return fail('invalid-wire', detail, { errors: issues });
}

/**
 * Validates a decoded JSON body posted to `streamId` and turns it into a
 * draft Wire 1.1. Wire 1.0 envelopes are upgraded: the server assigns a
 * sortable `wire_id` and takes `stream_id` from the path.
 */
export function parseAppend(body: unknown, streamId: string): Result<ParsedAppend> {
  const pathProblem = streamIdProblem(streamId);
  if (pathProblem !== null) return fail('invalid-stream-id', pathProblem);

  // The common case skips the union schema; anything unusual takes it.
  const plain =
    isPlainWire11(body, streamId) && Timestamp.safeParse((body as { ts: unknown }).ts).success;
  const parsed = plain ? null : WireInput.safeParse(body);
  if (parsed && !parsed.success) return invalid(issuesOf(parsed.error));
  const input = parsed ? parsed.data : (body as z.infer<typeof Wire11Input>);

  if (input.stream_id !== undefined && input.stream_id !== streamId) {
    return fail(
      'stream-id-mismatch',
      `stream_id in the body ("${input.stream_id}") differs from the stream in the path ("${streamId}")`,
    );
  }

  if (isKnownType(input.type)) {
    const payload = PAYLOADS[input.type].safeParse(input.payload);
    if (!payload.success) return invalid(issuesOf(payload.error, ['payload']));
  } else {
    const refProblem = referenceProblems(input.payload);
    if (refProblem !== null) return invalid([{ path: 'payload.sha256', message: refProblem }]);
  }

  if (input.wire === '1.1') {
    const reserved = reservedWireIdProblem(input.wire_id);
    if (reserved !== null) return invalid([{ path: 'wire_id', message: reserved }]);
  }

  const unpaired = loneSurrogatePath(body);
  if (unpaired !== null) return invalid([{ path: unpaired, message: LONE_SURROGATE_MESSAGE }]);

  const upgraded = input.wire === '1.0';
  const draft: Draft = {
    wire: '1.1',
    wire_id: input.wire === '1.1' ? input.wire_id : newWireId(),
    stream_id: streamId,
    correlation_id: input.wire === '1.1' ? (input.correlation_id ?? null) : null,
    causation_id: input.wire === '1.1' ? (input.causation_id ?? null) : null,
    type: input.type,
    sender: input.sender,
    ts: input.ts,
    payload: input.payload,
  };
  const expectedSeq = input.wire === '1.1' ? input.stream_seq : undefined;
  return { ok: true, draft, expectedSeq, upgraded };
}

/** The HCS message body of a Wire: canonical JSON of the full envelope. */
export function wireMessage(wire: Wire): string {
  return storedCanonicalJson(wire);
}

/** Content identity used for idempotent replay (ignores server-assigned seq). */
export function draftIdentity(draft: Draft): string {
  return storedCanonicalJson(draft);
}
