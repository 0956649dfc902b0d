import * as z from 'zod';
import { WIRE_ID_PATTERN } from '../../wire11-fast-path';
import { ENVELOPE_KEY, isJsonObject, type JsonObject } from '../foreign';
import { defineForeignDialect, type ForeignDialectOptions } from '../foreign-dialect';

const Id = z.string().min(1).max(256);
const JsonRecord = z.record(z.string(), z.json());

/** Runtime v1's envelope (seed 003, FR-1); unknown members are accepted and kept. */
export const EnvelopeV1 = z
  .object(
    {
      protocolVersion: z.string().min(1),
      messageId: z
        .string()
        .regex(
          WIRE_ID_PATTERN,
          'messageId must be 1-128 characters: letters, digits, . _ : - (starting with a letter or digit)',
        ),
      messageType: z.string().min(1).max(200),
      ts: z.iso.datetime({ offset: true, error: 'ts must be an ISO 8601 date-time' }),
      traceId: Id,
      channelId: Id,
      taskId: Id.optional(),
      branchId: Id.optional(),
      workerId: Id.optional(),
      payload: JsonRecord,
      extensions: JsonRecord,
    },
    { error: 'an Envelope v1 must be a JSON object' },
  )
  .catchall(z.json());

/** A deployment's name and Wire-type prefix for the Runtime v1 dialect. */
export type RuntimeEnvelopeV1Options = ForeignDialectOptions;

/**
 * Seed 003's Envelope v1 as Wires. `messageId` → `wire_id` (so a retried
 * message is the same Wire), `messageType` → `<prefix>.<messageType>`, `ts` →
 * `ts`, `traceId` → `correlation_id`, `payload` → the payload; `protocolVersion`,
 * `channelId`, `taskId`, `branchId`, `workerId`, `extensions` and any unknown
 * member travel verbatim under `payload.$envelope` (with `messageType` or
 * `payload` too, in the rare case they have no exact Wire form). The envelope
 * names no sender: the authenticated one is the Wire's. Read-back form: the
 * envelope as sent.
 */
export function runtimeEnvelopeV1Dialect(options: RuntimeEnvelopeV1Options = {}) {
  return defineForeignDialect<z.infer<typeof EnvelopeV1>>({
    name: options.name ?? 'runtime-envelope-v1',
    prefix: options.prefix ?? 'runtime',
    separator: '.',
    schema: EnvelopeV1,
    typeOf: (envelope) => envelope.messageType,
    split({ messageId, messageType, ts, traceId }, body, ctx, typeKept) {
      const {
        messageId: _id,
        messageType: _type,
        ts: _ts,
        traceId: _trace,
        payload,
        ...rest
      } = body;
      if (typeKept) rest.messageType = messageType;
      let fields: JsonObject = {};
      if (isJsonObject(payload) && !Object.hasOwn(payload, ENVELOPE_KEY)) fields = payload;
      else if (payload !== undefined) rest.payload = payload;
      return { wireId: messageId, correlationId: traceId, sender: ctx.sender, ts, fields, rest };
    },
    noSender: {
      path: '(envelope)',
      message: 'an Envelope v1 names no sender: the request must be authenticated',
    },
    join: (wire, messageType, fields, rest) => ({
      messageId: wire.wire_id,
      messageType,
      ts: wire.ts,
      ...(wire.correlation_id === null ? {} : { traceId: wire.correlation_id }),
      payload: fields,
      ...rest,
    }),
    pathOf(wirePath) {
      if (wirePath === 'payload' || wirePath.startsWith('payload.')) return wirePath;
      const field = ENVELOPE_FIELDS[wirePath];
      return field ?? '(envelope)';
    },
  });
}

const ENVELOPE_FIELDS: Record<string, string | undefined> = {
  wire_id: 'messageId',
  type: 'messageType',
  ts: 'ts',
  correlation_id: 'traceId',
};

/** The Runtime v1 dialect with its defaults (`runtime-envelope-v1`, types under `runtime.`). */
export const runtimeEnvelopeV1 = runtimeEnvelopeV1Dialect();
