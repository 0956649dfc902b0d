import type { Payload } from '../envelope';
import { WIRE_TYPE_PATTERN } from '../wire-type';

/**
 * Building blocks for dialects whose envelopes are not Wires (seed 003's
 * Envelope v1, seed 004's colon events). A foreign envelope maps onto the
 * Wire's fields where the mapping reads back exactly (its id → `wire_id`, its
 * time → `ts`, its type → a dotted `type` under the dialect's prefix); every
 * member that no Wire field carries exactly — unknown ones included — is kept
 * verbatim in the payload under `ENVELOPE_KEY`. Anchored bytes are canonical
 * JSON of the Wire, so they hold the whole foreign envelope.
 */

/** The payload member that holds a foreign envelope's other members. */
export const ENVELOPE_KEY = '$envelope';

export type JsonObject = Payload;
export type JsonValue = Payload[string];

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_TYPE = 100; // WireType's limit

/**
 * A foreign type as a Wire type: `<prefix>.` and the type with `separator`
 * read as '.' (`task:started` → `gsd.task.started`), or null when that is no
 * Wire type or would not read back as the same foreign type (`Task:Started`,
 * `a.b:c`). The prefix keeps foreign types out of other catalogues: GSD's
 * `task:started` is not seed 000's `task.started`.
 */
export function wireTypeOf(prefix: string, foreign: string, separator: string): string | null {
  const candidate = `${prefix}.${foreign.split(separator).join('.')}`;
  if (candidate.length > MAX_TYPE || !WIRE_TYPE_PATTERN.test(candidate)) return null;
  return foreignTypeOf(prefix, candidate, separator) === foreign ? candidate : null;
}

/** The inverse of `wireTypeOf` (a Wire type without the prefix keeps all its words). */
export function foreignTypeOf(prefix: string, wireType: string, separator: string): string {
  const bare = wireType.startsWith(`${prefix}.`) ? wireType.slice(prefix.length + 1) : wireType;
  return bare.split('.').join(separator);
}

/**
 * The Wire type of a foreign type that has no Wire form; the original is kept
 * in the envelope members. No mapped type can be it: every mapped type has at
 * least two words after the prefix, or (for `.`-separated dialects) reads
 * back as `verbatim` itself, which is then exact.
 */
export function verbatimType(prefix: string): string {
  return `${prefix}.verbatim`;
}

/** The Wire payload: `fields`, plus `rest` under ENVELOPE_KEY when it has members. */
export function packPayload(fields: JsonObject, rest: JsonObject): JsonObject {
  return Object.keys(rest).length === 0 ? fields : { ...fields, [ENVELOPE_KEY]: rest };
}

/** The inverse of `packPayload`. A payload whose ENVELOPE_KEY is no object keeps it as a field. */
export function unpackPayload(payload: JsonObject): { fields: JsonObject; rest: JsonObject } {
  // Rest/spread copy with CreateDataProperty, so a `__proto__` member stays a member.
  const { [ENVELOPE_KEY]: rest, ...fields } = payload;
  return isJsonObject(rest) ? { fields, rest } : { fields: payload, rest: {} };
}
