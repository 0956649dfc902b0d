import * as z from 'zod';
import { DIALECTS, type Dialect, dialectNamed } from './dialects';
import { Wire, WireInput } from './envelope';

/** A zod schema as JSON Schema of what clients send; what JSON Schema cannot say is left open. */
export function requestSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

/** A JSON Schema (2020-12) document: its title and description, then `members`. */
export function schemaDocument(
  title: string,
  description: string,
  members: Record<string, unknown>,
): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title,
    description,
    ...members,
  };
}

/**
 * JSON Schema (2020-12) of the envelope and of each payload the protocol
 * modules' catalogues declare (`types`: Wire type → `{ payload }`), from zod.
 */
export function wireJsonSchema(
  types: ReadonlyMap<string, { payload?: z.ZodType }>,
): Record<string, unknown> {
  const payloads: Record<string, unknown> = {};
  for (const [type, spec] of types) {
    if (spec.payload) payloads[type] = requestSchema(spec.payload);
  }
  return schemaDocument(
    'Wirestream Wire envelope',
    'Wire 1.1 (seed 000). `input` is what POST /v1/streams/{stream_id}/wires accepts (1.0 or 1.1); `wire` is a stored Wire; `payloads` has the schema of each known type.',
    {
      input: requestSchema(WireInput),
      wire: z.toJSONSchema(Wire, { io: 'output', unrepresentable: 'any' }),
      payloads,
    },
  );
}

/**
 * JSON Schema (2020-12) of the envelope a dialect's clients send, from its zod
 * schema; null for a name no dialect has. Pass `dialects` to look in a
 * registry other than the built-in list.
 */
export function dialectJsonSchema(
  name: string,
  dialects: readonly Dialect[] = DIALECTS,
): Record<string, unknown> | null {
  const dialect = dialectNamed(name, dialects);
  if (dialect === null) return null;
  return {
    ...requestSchema(dialect.schema),
    title: `Wirestream dialect ${dialect.name}`,
  };
}
