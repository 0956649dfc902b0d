/** Standard base64 (RFC 4648 §4) for bytes, the form HCS, the mirror and C2SP notes use. */

/*
 * Where the runtime has the ES2026 base64 methods (workerd does; Node 20 does
 * not), they do the work natively: decoding a 600-byte mirror message took
 * ~68 µs through `Uint8Array.from(atob(…), …)` and takes ~2 µs natively, and
 * the anchoring loop decodes one per Wire to check the running-hash chain.
 * Elsewhere a plain loop over `atob`/`btoa` is the fallback.
 */
const native = Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array };
const nativeEncode = (Uint8Array.prototype as { toBase64?: () => string }).toBase64;

export function toBase64(bytes: Uint8Array): string {
  if (nativeEncode) return nativeEncode.call(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Decodes text known to be base64 (a mirror's or our own); throws on anything else. */
export function fromBase64(text: string): Uint8Array {
  if (native.fromBase64) return native.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Decodes untrusted text: null unless it is canonical, padded base64. */
export function parseBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  return fromBase64(text);
}

/** base64url without padding (RFC 4648 §5), the form JWK and JOSE use for keys and signatures. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes untrusted base64url text (no padding); null if it is not. */
export function parseBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  return fromBase64(b64.padEnd(b64.length + ((4 - (b64.length % 4)) % 4), '='));
}
