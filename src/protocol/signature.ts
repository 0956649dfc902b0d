import * as z from 'zod';
import { parseBase64Url } from './base64';
import { canonicalJson } from './canonical-json';
import { WIRE_FIELDS } from './wire11-fast-path';

/**
 * Agent-signed Wires (issue 31): a Wire may carry `sig {kid, alg, value}`, an
 * Ed25519 signature by one of its sender's registered keys over the signing
 * input below. The signature travels inside the stored and anchored envelope
 * (the HCS message, the log-mode leaf), so anyone holding the mirror's copy and
 * the agent's key history can check that the agent said it. Shared by the
 * server's guard (`kernel/signatures.ts`), the SDK that signs and the auditor's
 * check (`client/signing.ts`).
 */

export const SIG_ALG = 'Ed25519';

export const Kid = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    'kid must be 1-64 characters: letters, digits, . _ : - (starting with a letter or digit)',
  );

/** An Ed25519 public key: its 32 raw bytes in base64url, as a JWK's `x`. */
export const PublicKey = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/,
    'public_key must be a 32-byte Ed25519 public key in base64url without padding (43 characters, a JWK\'s "x")',
  );

export const Signature = z.strictObject({
  kid: Kid,
  alg: z.literal(SIG_ALG, { error: 'sig.alg must be "Ed25519"' }),
  value: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{85}[AQgw]$/,
      'sig.value must be a 64-byte Ed25519 signature in base64url without padding (86 characters)',
    ),
});
export type Signature = z.infer<typeof Signature>;

/**
 * The members a signature covers, exactly as the client sends them (absent
 * `correlation_id` / `causation_id` count as null). Left out: `sig` itself and
 * what the server assigns — `stream_seq` (a client's `stream_seq` is only an
 * expectation), `received_at`, and every anchor field (`hcs_topic_id`,
 * `hcs_sequence_number`, `consensus_timestamp`, `running_hash`, …). `stream_id`
 * is covered, so a signature replayed on another stream does not verify.
 */
export const SIGNED_FIELDS = WIRE_FIELDS.filter(
  (field): field is Exclude<(typeof WIRE_FIELDS)[number], 'stream_seq'> => field !== 'stream_seq',
);

type Signable = { [K in (typeof SIGNED_FIELDS)[number]]?: unknown };

/** The signing input: RFC 8785 canonical JSON of the signed members, UTF-8. */
export function signingInput(envelope: Signable): Uint8Array {
  const signed: Record<string, unknown> = {};
  for (const field of SIGNED_FIELDS) signed[field] = envelope[field] ?? null;
  return new TextEncoder().encode(canonicalJson(signed));
}

const keys = new Map<string, Promise<CryptoKey>>();
const MAX_KEYS = 512;

function importPublicKey(publicKey: string): Promise<CryptoKey> | null {
  let key = keys.get(publicKey);
  if (key === undefined) {
    const raw = parseBase64Url(publicKey);
    if (raw?.length !== 32) return null;
    if (keys.size >= MAX_KEYS) keys.clear();
    key = crypto.subtle.importKey('raw', raw, { name: SIG_ALG }, false, ['verify']);
    keys.set(publicKey, key);
  }
  return key;
}

/** Whether `sig` is `publicKey`'s Ed25519 signature of the envelope's signing input (WebCrypto). */
export async function signatureVerifies(
  envelope: Signable,
  sig: Pick<Signature, 'value'>,
  publicKey: string,
): Promise<boolean> {
  const key = importPublicKey(publicKey);
  const value = parseBase64Url(sig.value);
  if (key === null || value?.length !== 64) return false;
  try {
    return await crypto.subtle.verify(SIG_ALG, await key, value, signingInput(envelope));
  } catch {
    return false;
  }
}
