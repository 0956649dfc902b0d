import canonicalize from 'canonicalize';

/**
 * Canonical JSON as RFC 8785 (JCS) defines it, so a verifier outside
 * Wirestream can recompute the exact bytes put on HCS: object keys sorted by
 * UTF-16 code units at every depth, ECMAScript number serialisation, no
 * insignificant white space. https://www.rfc-editor.org/rfc/rfc8785
 *
 * Throws for a value RFC 8785 cannot represent (a lone UTF-16 surrogate, NaN,
 * Infinity): client input is checked with `loneSurrogatePath` before it gets
 * here, so a throw is a bug.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

/**
 * `canonicalJson` for a Wire already stored. Wires accepted before lone
 * surrogates were refused may hold one; those keep the bytes the earlier
 * serialiser gave them (`legacyCanonicalJson`) instead of throwing, so a
 * replay check or an outbox delivery of such a Wire still works.
 */
export function storedCanonicalJson(value: unknown): string {
  try {
    return canonicalJson(value);
  } catch (error) {
    if (loneSurrogatePath(value) !== null) return legacyCanonicalJson(value);
    throw error;
  }
}

/**
 * The bytes Wirestream put on HCS before it used RFC 8785: keys sorted, but
 * integer-like keys first in numeric order (JavaScript's own property order)
 * and lone surrogates escaped. Only for checking messages anchored then.
 */
export function legacyCanonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/** A UTF-16 surrogate not paired with its other half (the `u` flag reads pairs as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Where `value` holds a string or an object key with a lone UTF-16 surrogate,
 * which RFC 8785 refuses (e.g. `payload.note`, `payload.tags.2`), or null.
 * Iterative, so a deeply nested value cannot overflow the stack.
 */
export function loneSurrogatePath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return path || '(value)';
    } else if (item !== null && typeof item === 'object') {
      // Arrays too: their entries are keyed "0", "1", …
      for (const [key, v] of Object.entries(item)) {
        if (LONE_SURROGATE.test(key)) return join(path, key);
        stack.push([v, join(path, key)]);
      }
    }
  }
  return null;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
