/**
 * Sortable unique ids (ULID layout: 48-bit millisecond time + 80 random bits,
 * Crockford base32). Ids minted in the same millisecond by one isolate stay
 * ordered because the random part is incremented instead of redrawn.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 base32 characters.
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = bytes.slice();
  for (let i = next.length - 1; i >= 0; i--) {
    const v = (next[i] ?? 0) + 1;
    next[i] = v & 0xff;
    if (v <= 0xff) break;
  }
  return next;
}

/** A new ULID, monotonic within this isolate. `now` is injectable for tests. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
  } else {
    lastTime = now;
    lastRandom = crypto.getRandomValues(new Uint8Array(10));
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
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
