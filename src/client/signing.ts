import { encOf, openEnvelope } from '../private/seal';
import { fromBase64, parseBase64Url, toBase64Url } from '../protocol/base64';
import {
  type OfferedSignature,
  payloadCommitment,
  SIG_ALG,
  type Signature,
  signatureVerifies,
  signingInput,
} from '../protocol/signature';

/**
 * Agent-signed Wires from the SDK's side: make and read Ed25519 key files
 * (private JWKs), sign a Wire the way the server checks it, and the auditor's
 * check of an anchored Wire against the agent's key history, from mirror data
 * alone. WebCrypto only, so it runs in Node 20, browsers and Workers.
 */

/** A signing key the client holds: `kid` as registered, `public_key` as the payload names it. */
export interface AgentKey {
  kid: string;
  public_key: string;
  privateKey: CryptoKey;
}

/** An Ed25519 private JWK with its kid: what a key file holds. */
export interface AgentKeyJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  alg?: string;
  kid: string;
  x: string;
  d: string;
}

async function kidOf(publicKey: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', publicKey));
  return `ed25519-${toBase64Url(hash.slice(0, 9))}`;
}

/** A new key pair as a JWK (write it to a file only its owner reads); kid derived from the key. */
export async function generateAgentKeyJwk(kid?: string): Promise<AgentKeyJwk> {
  const pair = (await crypto.subtle.generateKey({ name: SIG_ALG }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  const x = jwk.x ?? '';
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    alg: SIG_ALG,
    kid: kid ?? (await kidOf(parseBase64Url(x) ?? new Uint8Array())),
    x,
    d: jwk.d ?? '',
  };
}

/** The key a JWK (a key file's JSON) holds; throws a TypeError naming what is wrong. */
export async function agentKeyFromJwk(jwk: unknown): Promise<AgentKey> {
  const j = jwk as Partial<AgentKeyJwk> | null;
  if (j?.kty !== 'OKP' || j.crv !== 'Ed25519' || typeof j.x !== 'string' || typeof j.d !== 'string')
    throw new TypeError(
      'a key file must hold an Ed25519 private JWK ({"kty":"OKP","crv":"Ed25519","x":…,"d":…,"kid":…})',
    );
  if (typeof j.kid !== 'string' || j.kid === '') throw new TypeError('the key file names no "kid"');
  const privateKey = await crypto.subtle.importKey(
    'jwk',
    { kty: 'OKP', crv: 'Ed25519', x: j.x, d: j.d },
    { name: SIG_ALG },
    false,
    ['sign'],
  );
  return { kid: j.kid, public_key: j.x, privateKey };
}

/**
 * The Wire with `sig` by `key` over its signing input (`protocol/signature.ts`).
 * By default in the committed form: a fresh random salt, `sig.salt`, and the
 * signature over `payload_commitment` in place of the payload, which any
 * project accepts and a private project requires (its sealed envelope stays
 * verifiable without the key). `{ form: 'plain' }` signs the payload itself,
 * as before (public Wires only).
 */
export async function signWire<W extends Parameters<typeof signingInput>[0]>(
  wire: W,
  key: AgentKey,
  options: { form?: 'committed' | 'plain' } = {},
): Promise<W & { sig: Signature }> {
  const salt =
    options.form === 'plain' ? undefined : toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const commitment = salt === undefined ? undefined : await payloadCommitment(wire.payload, salt);
  const value = new Uint8Array(
    await crypto.subtle.sign(SIG_ALG, key.privateKey, signingInput(wire, commitment ?? undefined)),
  );
  const sig: Signature = { kid: key.kid, alg: SIG_ALG, value: toBase64Url(value) };
  return { ...wire, sig: salt === undefined ? sig : { ...sig, salt } };
}

/**
 * A signature for a Wire the server built from a request (a refusal's
 * `unsigned`), as the `Wirestream-Signatures` header offers it: the Wire's
 * `wire_id` and `ts` and `sig` over it. The client does this on its own when
 * it has a signing key; so does `wirestream mcp` with WIRESTREAM_KEY.
 */
export async function signatureOffer(
  unsigned: Record<string, unknown>,
  key: AgentKey,
): Promise<OfferedSignature> {
  const { sig } = await signWire(unsigned as Parameters<typeof signingInput>[0], key);
  return { wire_id: String(unsigned.wire_id), ts: String(unsigned.ts), sig };
}

/**
 * Times a client repeats one request to sign what the server built: a batch is
 * asked for whole, so one suffices (a tool that appends twice may need two).
 */
export const SIGNING_ROUNDS = 2;

/**
 * The Wires a refusal asks its client to sign: `unsigned` of a
 * `signature-required` problem (one Wire, or a batch's), else none. Not after
 * `signature-invalid`: offers made did not verify (another key, a revoked
 * one), and signing again would not help.
 */
export function wiresToSign(problem: Record<string, unknown> | null | undefined) {
  if (problem?.type !== '/problems/signature-required') return [];
  const list = Array.isArray(problem.unsigned) ? problem.unsigned : [problem.unsigned];
  return list.filter(
    (w): w is Record<string, unknown> => typeof w === 'object' && w !== null && !Array.isArray(w),
  );
}

/** A Wire as the auditor holds it: the anchored envelope (JSON) and its consensus time. */
export interface AnchoredEnvelope {
  envelope: Record<string, unknown>;
  /** `seconds.nanos`, from the mirror. */
  consensus_timestamp?: string;
  /** The account that paid for the HCS message (the coordinator's operator for what it anchored). */
  payer_account_id?: string;
}

/** The envelope an HCS message carries (a mirror message's base64 `message`), with its time. */
export function anchoredFromMirror(message: {
  message: string;
  consensus_timestamp: string;
  payer_account_id?: string;
}): AnchoredEnvelope {
  const text = new TextDecoder().decode(fromBase64(message.message));
  return {
    envelope: JSON.parse(text) as Record<string, unknown>,
    consensus_timestamp: message.consensus_timestamp,
    ...(message.payer_account_id ? { payer_account_id: message.payer_account_id } : {}),
  };
}

export type AuditResult =
  | {
      ok: true;
      sender: string;
      kid: string;
      /**
       * For a sealed (private) envelope only: `sealed` when the signature was
       * checked over the clear fields and the payload commitment (no key),
       * `opened` when the payload was also decrypted and found to make it.
       */
      payload?: 'sealed' | 'opened';
    }
  | {
      ok: false;
      reason:
        | 'unsigned'
        | 'unknown-kid'
        | 'bad-signature'
        | 'revoked'
        | 'needs-key'
        | 'payload-mismatch';
      detail: string;
    };

/**
 * A sealed envelope opened with its data key, for `verifyAnchoredWire`: the
 * clear Wire, why it does not open, or null (not sealed, or no key given).
 */
async function opened(
  envelope: Record<string, unknown>,
  dataKey: ((kid: string) => CryptoKey | Promise<CryptoKey>) | undefined,
): Promise<{ wire: Record<string, unknown> } | { failure: AuditResult } | null> {
  const enc = encOf(envelope);
  if (enc === null || dataKey === undefined) return null;
  let key: CryptoKey;
  try {
    key = await dataKey(enc.kid);
  } catch (error) {
    const detail = `no data key ${enc.kid}: ${(error as Error).message}`;
    return { failure: { ok: false, reason: 'needs-key', detail } };
  }
  const result = await openEnvelope(envelope, key);
  if (result.ok) return { wire: result.wire };
  return { failure: { ok: false, reason: 'payload-mismatch', detail: result.detail } };
}

/**
 * The auditor's check: did the agent sign this anchored Wire with one of its
 * registered keys? `history` is the agent's key Wires (`agent.key.registered`,
 * `.rotated`, `.revoked` on `agent:<id>`) as the mirror holds them; their
 * order does not matter (the agent's stream and the Wire's may anchor on
 * different topics, in either order, and the server already refused every
 * Wire signed by a key that was not active). A rotation retires a key without
 * doubting what it signed. A revocation says the key may be in other hands:
 * whatever it signed is reported `revoked`, whenever it was anchored.
 *
 * Anyone may put a message on a topic, and the coordinator refuses key Wires
 * put on HCS directly, but the mirror still shows them: pass `coordinator`,
 * the account that pays for what the coordinator anchors (its operator), and
 * only key Wires it paid for count.
 *
 * A private project's envelope is sealed (`enc`): its signature (committed
 * form) is checked over the clear fields and `sig.commitment`, without the
 * key. Pass `dataKey` (the project's data key by its `enc.kid`) to also
 * decrypt the payload and check that it and the salt make the commitment.
 */
export async function verifyAnchoredWire(
  anchored: AnchoredEnvelope,
  history: readonly AnchoredEnvelope[],
  options: {
    coordinator?: string;
    dataKey?: (kid: string) => CryptoKey | Promise<CryptoKey>;
  } = {},
): Promise<AuditResult> {
  const wire = anchored.envelope;
  const sender = String(wire.sender ?? '');
  const sig = wire.sig as (Signature & { commitment?: unknown }) | undefined;
  if (!sig || typeof sig.kid !== 'string' || typeof sig.value !== 'string') {
    return { ok: false, reason: 'unsigned', detail: 'the Wire carries no sig' };
  }
  const sealed = encOf(wire) !== null;
  const open = await opened(wire, options.dataKey);
  if (open !== null && 'failure' in open) return open.failure;
  const clear = open?.wire ?? null;
  if (sealed && sig.commitment === undefined && clear === null) {
    return {
      ok: false,
      reason: 'needs-key',
      detail: `the payload is sealed and sig signs it in the plain form: only the data key ${encOf(wire)?.kid} can check it`,
    };
  }
  let publicKey: string | null = null;
  let revokedAt: string | null = null;
  for (const entry of history) {
    const e = entry.envelope;
    const p = (e.payload ?? {}) as Record<string, unknown>;
    if (e.stream_id !== sender || p.kid !== sig.kid) continue;
    if (options.coordinator && entry.payer_account_id !== options.coordinator) continue;
    if (e.type === 'agent.key.registered' || e.type === 'agent.key.rotated')
      publicKey = String(p.public_key);
    if (e.type === 'agent.key.revoked') revokedAt = entry.consensus_timestamp ?? 'an unknown time';
  }
  if (publicKey === null) {
    return {
      ok: false,
      reason: 'unknown-kid',
      detail: `${sender} registered no key "${sig.kid}" in the history given`,
    };
  }
  // A commitment proves nothing about a payload in the clear: only a sealed envelope carries one.
  const signed = sealed && sig.commitment !== undefined ? wire : (clear ?? wire);
  const commitmentOk = sealed || sig.commitment === undefined;
  if (!commitmentOk || !(await signatureVerifies(signed, signed.sig as Signature, publicKey))) {
    return {
      ok: false,
      reason: 'bad-signature',
      detail: `sig is not key "${sig.kid}"'s signature of this Wire`,
    };
  }
  if (revokedAt !== null) {
    return {
      ok: false,
      reason: 'revoked',
      detail: `key "${sig.kid}" of ${sender} was revoked (anchored at ${revokedAt}): what it signed cannot be attributed to ${sender} with certainty`,
    };
  }
  if (!sealed) return { ok: true, sender, kid: sig.kid };
  return { ok: true, sender, kid: sig.kid, payload: clear === null ? 'sealed' : 'opened' };
}
