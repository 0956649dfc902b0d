import * as z from 'zod';
import { parseBase64Url, toBase64Url } from './base64';
import { canonicalJson } from './canonical-json';
import { WIRE_FIELDS } from './wire11-fast-path';

/**
 * Agent-signed Wires (issue 31): a Wire may carry `sig {kid, alg, value}`, an
 * Ed25519 signature by one of its sender's registered keys over the signing
 * input below. Two forms: the plain form signs the payload itself; the
 * committed form (`sig.salt`) signs `payload_commitment` instead, a salted
 * SHA-256 of the payload, so a private project's sealed envelope, which
 * carries the commitment in place of the salt, stays verifiable without the
 * payload's key (`private/seal.ts`). The signature travels inside the stored and anchored envelope
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

/** 32 bytes in base64url without padding (43 characters): a key, a salt, a SHA-256 commitment. */
const BYTES32 = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** An Ed25519 public key: its 32 raw bytes in base64url, as a JWK's `x`. */
export const PublicKey = z
  .string()
  .regex(
    BYTES32,
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
  /** The committed form: the random salt of `payload_commitment`. */
  salt: z
    .string()
    .regex(BYTES32, 'sig.salt must be 32 random bytes in base64url without padding (43 characters)')
    .optional(),
});
export type Signature = z.infer<typeof Signature>;

/**
 * The request header in which a client offers signatures for Wires the server
 * builds (MCP tools, dialect endpoints, run messages, workspace routes): a
 * JSON array of `OfferedSignature`, each made over a Wire a refusal's
 * `unsigned` showed.
 */
export const SIGNATURES_HEADER = 'Wirestream-Signatures';

/** A signature offered for a Wire the server builds, with the two members the server mints anew on each request. */
export interface OfferedSignature {
  wire_id: string;
  ts: string;
  sig: Signature;
}

/**
 * `sig` as a sealed envelope carries it: the salt went into the ciphertext,
 * the commitment it made stays in the clear. Only ever in anchored messages.
 */
export interface SealedSignature {
  kid: string;
  alg: typeof SIG_ALG;
  value: string;
  commitment: string;
}

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

const UTF8 = new TextEncoder();

/**
 * The signing input: RFC 8785 canonical JSON of the signed members, UTF-8.
 * In the committed form (`commitment` given) `payload` is replaced by
 * `payload_commitment`.
 */
export function signingInput(envelope: Signable, commitment?: string): Uint8Array {
  const signed: Record<string, unknown> = {};
  for (const field of SIGNED_FIELDS) signed[field] = envelope[field] ?? null;
  if (commitment !== undefined) {
    delete signed.payload;
    signed.payload_commitment = commitment;
  }
  return UTF8.encode(canonicalJson(signed));
}

/**
 * `payload_commitment`: base64url(SHA-256(salt ‖ RFC 8785 JSON of payload)),
 * salt being the 32 bytes `sig.salt` names. Without the salt it reveals
 * nothing about the payload, not even whether two payloads are equal.
 */
export async function payloadCommitment(payload: unknown, salt: string): Promise<string | null> {
  const raw = parseBase64Url(salt);
  if (raw?.length !== 32) return null;
  const json = UTF8.encode(canonicalJson(payload));
  const input = new Uint8Array(32 + json.length);
  input.set(raw);
  input.set(json, 32);
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', input)));
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

/**
 * Whether `sig` is `publicKey`'s Ed25519 signature of the envelope's signing
 * input (WebCrypto), in whichever form `sig` is: plain, committed with the
 * salt (the commitment recomputed from the envelope's payload), or sealed
 * (its `commitment` taken as it is: the payload is ciphertext).
 */
export async function signatureVerifies(
  envelope: Signable,
  sig: { value: string; salt?: unknown; commitment?: unknown },
  publicKey: string,
): Promise<boolean> {
  const key = importPublicKey(publicKey);
  const value = parseBase64Url(sig.value);
  if (key === null || value?.length !== 64) return false;
  if (sig.salt !== undefined && sig.commitment !== undefined) return false;
  let commitment: string | null | undefined;
  if (sig.salt !== undefined)
    commitment =
      typeof sig.salt === 'string' ? await payloadCommitment(envelope.payload, sig.salt) : null;
  else if (sig.commitment !== undefined)
    commitment =
      typeof sig.commitment === 'string' && BYTES32.test(sig.commitment) ? sig.commitment : null;
  if (commitment === null) return false;
  try {
    return await crypto.subtle.verify(
      SIG_ALG,
      await key,
      value,
      signingInput(envelope, commitment),
    );
  } catch {
    return false;
  }
}
