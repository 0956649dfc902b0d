import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../../../api/app-env';
import { EnvelopeV1 } from '../../../protocol/dialects';
import { PAYLOAD_BUDGETS, PAYLOADS, V1_MESSAGE_TYPES } from '../payloads';

/**
 * `GET /v1/schema/runtime-envelope-v1.json`: JSON Schema (2020-12) of
 * Envelope v1 and of each message type's payload, with its byte budget.
 */
export const schema = new Hono<AppEnv>();

let cached: string | null = null;

export function runtimeJsonSchema(): Record<string, unknown> {
  const payloads: Record<string, unknown> = {};
  for (const [type, payload] of Object.entries(PAYLOADS)) {
    payloads[type] = {
      ...z.toJSONSchema(payload, { io: 'input', unrepresentable: 'any' }),
      'x-budget-bytes': PAYLOAD_BUDGETS[type as keyof typeof PAYLOADS],
    };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Runtime v1 Envelope (seed 003)',
    description:
      'Every runtime event is one Envelope v1. Unknown members are accepted and kept (reading an event back returns what was sent); evolution is additive only.',
    envelope: z.toJSONSchema(EnvelopeV1, { io: 'input', unrepresentable: 'any' }),
    messageTypes: V1_MESSAGE_TYPES,
    payloads,
  };
}

schema.get('/schema/runtime-envelope-v1.json', (c) => {
  cached ??= JSON.stringify(runtimeJsonSchema());
  return c.body(cached, 200, { 'Content-Type': 'application/schema+json' });
});
