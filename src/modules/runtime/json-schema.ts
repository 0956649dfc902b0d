import { EnvelopeV1 } from '../../protocol/dialects';
import { requestSchema, schemaDocument } from '../../protocol/json-schema';
import { PAYLOAD_BUDGETS, PAYLOADS, V1_MESSAGE_TYPES } from './payloads';

/**
 * JSON Schema (2020-12) of Envelope v1 and of each message type's payload,
 * with its byte budget. Built at build time (src/modules/schemas.ts), served
 * as `GET /v1/schema/runtime-envelope-v1.json`.
 */
export function runtimeJsonSchema(): Record<string, unknown> {
  const payloads: Record<string, unknown> = {};
  for (const [type, payload] of Object.entries(PAYLOADS)) {
    payloads[type] = {
      ...requestSchema(payload),
      'x-budget-bytes': PAYLOAD_BUDGETS[type as keyof typeof PAYLOADS],
    };
  }
  return schemaDocument(
    'Runtime v1 Envelope (seed 003)',
    'Every runtime event is one Envelope v1. Unknown members are accepted and kept (reading an event back returns what was sent); evolution is additive only.',
    { envelope: requestSchema(EnvelopeV1), messageTypes: V1_MESSAGE_TYPES, payloads },
  );
}
