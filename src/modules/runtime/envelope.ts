import { derivedWireId } from '../../kernel/derived-id';
import type { Draft, Wire } from '../../protocol';
import { ENVELOPE_KEY, type JsonObject, runtimeEnvelopeV1 } from '../../protocol/dialects';

/**
 * Runtime v1's Envelope (FR-1) is the dialect `runtime-envelope-v1`
 * (`src/protocol/dialects/examples/`): `messageId` is the `wire_id`,
 * `messageType` the Wire type under `runtime.`, `traceId` the
 * `correlation_id`; everything else (channelId, taskId, branchId, workerId,
 * protocolVersion, extensions, unknown members) is kept verbatim under
 * `payload.$envelope`, so reading an event back gives what was sent.
 */
export const DIALECT = runtimeEnvelopeV1;
export const PREFIX = 'runtime.';
export const PROTOCOL_VERSION = '1.0';
/** Wire ids the runtime derives for its own events (clients may not use `rt:`). */
export const DERIVED = 'rt';

export const wireType = (messageType: string) => `${PREFIX}${messageType}`;
export const messageTypeOf = (type: string) =>
  type.startsWith(PREFIX) ? type.slice(PREFIX.length) : type;

export function rtId(...parts: (string | number)[]): string {
  return derivedWireId(DERIVED, ...parts);
}

/** The envelope members kept under `$envelope` (channelId, workerId…). */
export function envelopeMembers(payload: Wire['payload']): JsonObject {
  const rest = payload[ENVELOPE_KEY];
  return typeof rest === 'object' && rest !== null && !Array.isArray(rest)
    ? (rest as JsonObject)
    : {};
}

export function memberOf(payload: Wire['payload'], name: string): string | undefined {
  const value = envelopeMembers(payload)[name];
  return typeof value === 'string' ? value : undefined;
}

export interface SystemEvent {
  streamId: string;
  messageType: string;
  wireId: string;
  ts: string;
  traceId: string | null;
  channelId: string;
  taskId?: string | undefined;
  branchId?: string | undefined;
  workerId?: string | undefined;
  payload: JsonObject;
}

/**
 * A runtime event written by the runtime itself (a route decision, a
 * threshold hit, a lifecycle copy), shaped exactly as the dialect decodes a
 * client's envelope, so it reads back as a full Envelope v1.
 */
export function systemDraft(e: SystemEvent): Draft {
  const members: JsonObject = { protocolVersion: PROTOCOL_VERSION, channelId: e.channelId };
  if (e.taskId !== undefined) members.taskId = e.taskId;
  if (e.branchId !== undefined) members.branchId = e.branchId;
  if (e.workerId !== undefined) members.workerId = e.workerId;
  members.extensions = {};
  return {
    wire: '1.1',
    wire_id: e.wireId,
    stream_id: e.streamId,
    correlation_id: e.traceId,
    causation_id: null,
    type: wireType(e.messageType),
    sender: 'system',
    ts: e.ts,
    payload: { ...e.payload, [ENVELOPE_KEY]: members },
  };
}

/** A stored event copied onto another stream (a lifecycle copy), with a derived id. */
export function copyTo(wire: Wire, streamId: string): Draft {
  return {
    wire: '1.1',
    wire_id: rtId('copy', wire.stream_id, wire.wire_id),
    stream_id: streamId,
    correlation_id: wire.correlation_id,
    causation_id: null,
    type: wire.type,
    sender: 'system',
    ts: wire.ts,
    payload: wire.payload,
  };
}

/** A stored Wire in Envelope v1 form. */
export function toEnvelope(wire: Wire): JsonObject {
  return DIALECT.encode(wire);
}
