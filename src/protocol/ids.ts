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

/** A server-assigned wire id: `wire_` + ULID. */
export function newWireId(now?: number): string {
  return `wire_${ulid(now)}`;
}

/**
 * The kinds of the wire ids the coordinator derives for its own Wires
 * (`src/coordination/derived-id.ts`: `offer:<task>:<attempt>`, …). A client
 * may not use them: wire_ids are global (read models, proofs), so a client
 * posting a predictable `offer:…` first would take the coordinator's Wire's place.
 */
export const DERIVED_WIRE_ID_KINDS = [
  'confirm',
  'expired',
  'feed',
  'lapsed',
  'offer',
  'release',
  'return',
  'revoked',
  'signal',
] as const;
export type DerivedWireIdKind = (typeof DERIVED_WIRE_ID_KINDS)[number];

const RESERVED = new RegExp(`^(${DERIVED_WIRE_ID_KINDS.join('|')}):`);

/** Why a client may not post `wireId`, or null. */
export function reservedWireIdProblem(wireId: string): string | null {
  const kind = RESERVED.exec(wireId)?.[1];
  return kind === undefined
    ? null
    : `wire_id "${wireId}" starts with "${kind}:", which is reserved for Wires the coordinator derives`;
}
