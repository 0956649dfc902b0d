import * as z from 'zod';
import { type Draft, fieldIssues, invalidWire, Sender } from '../../envelope';
import { WIRE_ID_PATTERN } from '../../wire11-fast-path';
import { defineDialect } from '../dialect';
import {
  ENVELOPE_KEY,
  foreignTypeOf,
  isJsonObject,
  type JsonObject,
  packPayload,
  unpackPayload,
  verbatimType,
  wireTypeOf,
} from '../foreign';

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

export interface RuntimeEnvelopeV1Options {
  /** Dialect name; `runtime-envelope-v1` by default. */
  name?: string;
  /** Prefix of the Wire types; `runtime` by default (`worker.spawned` → `runtime.worker.spawned`). */
  prefix?: string;
}

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
  const prefix = options.prefix ?? 'runtime';
  return defineDialect<JsonObject>({
    name: options.name ?? 'runtime-envelope-v1',
    schema: EnvelopeV1,
    decode(body, ctx) {
      const parsed = EnvelopeV1.safeParse(body);
      if (!parsed.success) return invalidWire(fieldIssues(parsed.error));
      if (ctx.sender === undefined || !Sender.safeParse(ctx.sender).success) {
        return invalidWire([
          {
            path: '(envelope)',
            message: 'an Envelope v1 names no sender: the request must be authenticated',
          },
        ]);
      }
      const { messageId, messageType, ts, traceId } = parsed.data;
      // Members come from the body itself, not zod's copy: what was sent is what is kept.
      const {
        messageId: _id,
        messageType: _type,
        ts: _ts,
        traceId: _trace,
        payload,
        ...rest
      } = body as JsonObject;
      const wireType = wireTypeOf(prefix, messageType, '.');
      if (wireType === null) rest.messageType = messageType;
      let fields: JsonObject = {};
      if (isJsonObject(payload) && !Object.hasOwn(payload, ENVELOPE_KEY)) fields = payload;
      else if (payload !== undefined) rest.payload = payload;

      const draft: Draft = {
        wire: '1.1',
        wire_id: messageId,
        stream_id: ctx.streamId,
        correlation_id: traceId,
        causation_id: null,
        type: wireType ?? verbatimType(prefix),
        sender: ctx.sender,
        ts,
        payload: packPayload(fields, rest),
      };
      return { ok: true, draft };
    },
    encode(wire) {
      const { fields, rest } = unpackPayload(wire.payload);
      return {
        messageId: wire.wire_id,
        messageType: foreignTypeOf(prefix, wire.type, '.'),
        ts: wire.ts,
        ...(wire.correlation_id === null ? {} : { traceId: wire.correlation_id }),
        payload: fields,
        ...rest,
      };
    },
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
