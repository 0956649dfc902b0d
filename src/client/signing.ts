import { fromBase64, parseBase64Url, toBase64Url } from '../protocol/base64';
import { SIG_ALG, type Signature, signatureVerifies, signingInput } from '../protocol/signature';

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

/** The Wire with `sig` by `key` over its signing input (`protocol/signature.ts`). */
export async function signWire<W extends Parameters<typeof signingInput>[0]>(
  wire: W,
  key: AgentKey,
): Promise<W & { sig: Signature }> {
  const value = new Uint8Array(
    await crypto.subtle.sign(SIG_ALG, key.privateKey, signingInput(wire)),
  );
  return { ...wire, sig: { kid: key.kid, alg: SIG_ALG, value: toBase64Url(value) } };
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
  | { ok: true; sender: string; kid: string }
  | {
      ok: false;
      reason: 'unsigned' | 'unknown-kid' | 'bad-signature' | 'revoked';
      detail: string;
    };

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
 */
export async function verifyAnchoredWire(
  anchored: AnchoredEnvelope,
  history: readonly AnchoredEnvelope[],
  options: { coordinator?: string } = {},
): Promise<AuditResult> {
  const wire = anchored.envelope;
  const sender = String(wire.sender ?? '');
  const sig = wire.sig as Signature | undefined;
  if (!sig || typeof sig.kid !== 'string' || typeof sig.value !== 'string') {
    return { ok: false, reason: 'unsigned', detail: 'the Wire carries no sig' };
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
  if (!(await signatureVerifies(wire, sig, publicKey))) {
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
  return { ok: true, sender, kid: sig.kid };
}
