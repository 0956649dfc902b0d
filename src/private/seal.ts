import { fromBase64, parseBase64, toBase64 } from '../protocol/base64';
import { canonicalJson } from '../protocol/canonical-json';
import type { Wire } from '../protocol/envelope';

/**
 * A private Wire as it leaves the coordinator (HCS, the log's leaves and its
 * archive): every field in the clear except `payload`, which becomes the
 * base64 of its AES-256-GCM ciphertext (with the 16-byte tag), and `enc`,
 * which says how:
 *
 *   {"enc":{"alg":"A256GCM","iv":"<base64 12 bytes>","kid":"<data key id>"},
 *    "payload":"<base64>", "stream_id":…, "stream_seq":…, "type":…, …}
 *
 * The plaintext is the RFC 8785 canonical JSON of the payload. The additional
 * data is the canonical JSON of the whole envelope without `payload` (so
 * `enc` and every routing field, signatures included): ciphertext moved to
 * another Wire, or a routing field changed, fails to decrypt.
 */
export const ALG = 'A256GCM';

export interface EncHeader {
  alg: typeof ALG;
  kid: string;
  iv: string;
}

const UTF8 = new TextEncoder();

/** The additional data AES-GCM binds: the envelope's canonical JSON without `payload`. */
function additionalData(envelope: Record<string, unknown>): Uint8Array {
  const { payload: _p, ...clear } = envelope;
  return UTF8.encode(canonicalJson(clear));
}

/** The anchored message of a private Wire: canonical JSON, its payload sealed under `key`. */
export async function sealWire(wire: Wire, kid: string, key: CryptoKey): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const enc: EncHeader = { alg: ALG, kid, iv: toBase64(iv) };
  const { payload, ...clear } = wire as Wire & Record<string, unknown>;
  const envelope = { ...clear, enc };
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: additionalData(envelope) },
    key,
    UTF8.encode(canonicalJson(payload)),
  );
  return canonicalJson({ ...envelope, payload: toBase64(new Uint8Array(sealed)) });
}

/** The `enc` header of an anchored envelope, if it is a sealed one. */
export function encOf(json: unknown): EncHeader | null {
  const enc = (json as { enc?: unknown } | null)?.enc as Partial<EncHeader> | undefined;
  if (typeof enc !== 'object' || enc === null) return null;
  if (enc.alg !== ALG || typeof enc.kid !== 'string' || typeof enc.iv !== 'string') return null;
  return enc as EncHeader;
}

/**
 * The envelope a sealed one was made from (without `enc`, payload in the
 * clear), or why not: the key does not open it (wrong key, or anything in
 * the envelope changed).
 */
export async function openEnvelope(
  envelope: Record<string, unknown>,
  key: CryptoKey,
): Promise<{ ok: true; wire: Record<string, unknown> } | { ok: false; detail: string }> {
  const enc = encOf(envelope);
  const iv = enc ? parseBase64(enc.iv) : null;
  const sealed = typeof envelope.payload === 'string' ? parseBase64(envelope.payload) : null;
  if (!enc || iv?.length !== 12 || !sealed) return { ok: false, detail: 'not a sealed envelope' };
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData: additionalData(envelope) },
      key,
      sealed,
    );
    const { enc: _e, ...clear } = envelope;
    return { ok: true, wire: { ...clear, payload: JSON.parse(new TextDecoder().decode(plain)) } };
  } catch {
    return { ok: false, detail: `data key ${enc.kid} does not open it (altered, or another key)` };
  }
}

/**
 * Whether a served Wire and a sealed anchored envelope agree on everything
 * outside the payload (what an auditor without the key can compare).
 */
export function sameClearFields(
  served: Record<string, unknown>,
  anchored: Record<string, unknown>,
): boolean {
  const { payload: _s, ...clearServed } = served;
  const { payload: _a, enc: _e, ...clearAnchored } = anchored;
  return canonicalJson(clearServed) === canonicalJson(clearAnchored);
}

/** An AES-256-GCM key from raw bytes, for data keys and key-encryption keys alike. */
export function aesKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** `iv ‖ ciphertext` of `plain` under `key`, bound to `label`: how data keys are wrapped. */
export async function wrapBytes(key: CryptoKey, plain: Uint8Array, label: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: UTF8.encode(label) },
    key,
    plain,
  );
  return toBase64(new Uint8Array([...iv, ...new Uint8Array(sealed)]));
}

/** The inverse of `wrapBytes`; throws if the key or label is not the one used. */
export async function unwrapBytes(key: CryptoKey, wrapped: string, label: string) {
  const bytes = fromBase64(wrapped);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: UTF8.encode(label) },
    key,
    bytes.subarray(12),
  );
  return new Uint8Array(plain);
}
