import { identifierProblem } from './identifier';
import { WIRE_TYPE_PATTERN } from './wire-type';

/** Must match WireId and Sender in envelope.ts. */
export const WIRE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const SENDER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/** The members of a Wire 1.1 envelope, in the order the protocol lists them. */
export const WIRE_FIELDS = [
  'wire',
  'wire_id',
  'stream_id',
  'stream_seq',
  'correlation_id',
  'causation_id',
  'type',
  'sender',
  'ts',
  'payload',
] as const;

const KEYS = new Set<string>(WIRE_FIELDS);
const REQUIRED = 7; // wire, wire_id, stream_id, type, sender, ts, payload

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

function isRef(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' &&
      value.length >= 1 &&
      value.length <= 256 &&
      identifierProblem(value) === null)
  );
}

/**
 * True when zod's `z.record(z.string(), z.json())` would return a deep copy
 * equal to `payload`: plain objects and arrays of strings, finite numbers,
 * booleans and null, and no `__proto__` key (a copy would turn it into a
 * prototype).
 */
function isPlainJson(payload: Record<string, unknown>): boolean {
  const stack: unknown[] = [payload];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      if (Object.getPrototypeOf(node) !== Array.prototype) return false;
      for (const item of node) stack.push(item);
    } else if (isPlainObject(node)) {
      for (const key in node) {
        if (key === '__proto__') return false;
        stack.push(node[key]);
      }
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) return false;
    } else if (node !== null && typeof node !== 'string' && typeof node !== 'boolean') {
      return false;
    }
  }
  return true;
}

/**
 * The common Wire 1.1 append, checked without zod's union schema (a third of
 * the Worker's parse time): a plain object with the 1.1 keys only,
 * `stream_id` equal to the path id (already valid), and fields that pass the
 * same tests the schemas apply. It only ever accepts; on any doubt it says
 * false and the zod schemas decide, so every refusal and its message still
 * come from them. `ts` is left to its zod schema. test/node/wire11-fast-path.test.ts
 * checks that what it accepts, zod accepts unchanged.
 */
export function isPlainWire11(body: unknown, streamId: string): boolean {
  if (!isPlainObject(body)) return false;
  let required = 0;
  for (const key in body) {
    if (!KEYS.has(key)) return false;
    if (key !== 'stream_seq' && key !== 'correlation_id' && key !== 'causation_id') required += 1;
  }
  if (required !== REQUIRED) return false;
  const { wire, wire_id, stream_id, stream_seq, correlation_id, causation_id, type, sender, ts } =
    body;
  const payload = body.payload;
  if (wire !== '1.1' || stream_id !== streamId) return false;
  if (typeof wire_id !== 'string' || !WIRE_ID_PATTERN.test(wire_id)) return false;
  if (typeof sender !== 'string' || !SENDER_PATTERN.test(sender)) return false;
  if (typeof type !== 'string' || type.length > 100 || !WIRE_TYPE_PATTERN.test(type)) return false;
  if (typeof ts !== 'string') return false;
  if (
    stream_seq !== undefined &&
    !(Number.isSafeInteger(stream_seq) && (stream_seq as number) >= 1)
  ) {
    return false;
  }
  if (!isRef(correlation_id) || !isRef(causation_id)) return false;
  if (!isPlainObject(payload) || !isPlainJson(payload)) return false;
  return true;
}
