import { monotonicFactory } from 'ulidx';

/**
 * Sortable unique ids: ULIDs (48-bit millisecond time + 80 random bits,
 * Crockford base32) from `ulidx`. The monotonic factory keeps ids minted in
 * the same millisecond by one isolate ordered: it increments the random part
 * instead of redrawing it. https://github.com/ulid/spec
 */
const ulid = monotonicFactory(uniformByte);

/**
 * ulidx's PRNG contract: a number in [0, 1). WebCrypto, read only when an id
 * is minted (Workers refuse random values in global scope), and divided by
 * 256 so each of the 32 base32 digits is equally likely.
 */
function uniformByte(): number {
  return (crypto.getRandomValues(new Uint8Array(1))[0] ?? 0) / 256;
}

/** A server-assigned id: `<prefix>_` + ULID (e.g. a webhook message's `msg_…`). */
export function newPrefixedId(prefix: string, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

/** A server-assigned wire id: `wire_` + ULID. */
export function newWireId(now?: number): string {
  return `wire_${ulid(now)}`;
}

/**
 * Why a client may not post `wireId`, or null: ids that start with a prefix
 * a protocol module derives for its own Wires (`offer:…`) are reserved.
 * wire_ids are global (read models, proofs), so a client posting a
 * predictable one first would take the module's Wire's place.
 */
export function reservedWireIdProblem(wireId: string, reserved: readonly string[]): string | null {
  const colon = wireId.indexOf(':');
  const kind = colon > 0 ? wireId.slice(0, colon) : '';
  return reserved.includes(kind)
    ? `wire_id "${wireId}" starts with "${kind}:", which is reserved for Wires the coordinator derives`
    : null;
}
