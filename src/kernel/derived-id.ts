/**
 * Deterministic wire ids for Wires a kind writes itself. `kind` must be one
 * of the prefixes its module declares (`derivedIds`), which clients may not use. A retried effect
 * (an alarm firing twice, an outbox re-delivery) sends the same wire_id with
 * the same content, so the target stream answers with a replay instead of
 * appending twice. Readable when the parts fit; hashed when they do not.
 */
const WIRE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function derivedWireId(kind: string, ...parts: (string | number)[]): string {
  // `_` is doubled and `~` (legal in stream ids, not in wire ids) becomes `_t`,
  // an injective escape, so distinct parts never produce the same id.
  const readable = [
    kind,
    ...parts.map((p) => String(p).replaceAll('_', '__').replaceAll('~', '_t')),
  ].join(':');
  if (WIRE_ID.test(readable)) return readable;
  return `${kind}:${fnv1a128(parts.join('\u0000'))}`;
}

/** 128-bit FNV-1a over UTF-16 code units, as 32 hex characters. */
function fnv1a128(text: string): string {
  let hash = 0x6c62272e07bb014262b821756295c58dn;
  const prime = 0x0000000001000000000000000000013bn;
  const mask = (1n << 128n) - 1n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * prime) & mask;
  }
  return hash.toString(16).padStart(32, '0');
}
