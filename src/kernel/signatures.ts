import { type Env, intVar } from '../env';
import {
  type Draft,
  type Failure,
  fail,
  type OfferedSignature,
  type ProblemObject,
  type Result,
  reservedWireIdProblem,
  SIGNATURES_HEADER,
  SIGNED_FIELDS,
  signatureVerifies,
} from '../protocol';
import type { Registry } from './registry';

/**
 * The signature guard every append passes (`append.ts`), whatever the
 * protocol: once a sender has registered a signing key, each Wire it posts
 * must carry `sig` by one of its active keys (`protocol/signature.ts`).
 *
 * Keys live with a module's identities (the coordination module keeps an
 * agent's on its `agent:<id>` stream) and reach the guard through the
 * module's `SignerDirectory`. A sender no directory holds (`human:…`,
 * `coordinator:…`) is never looked up. A sender with keys is looked up on
 * every append, so a rotation or a revocation holds from the next append.
 * A sender without keys is remembered as such for `keylessCacheMs(env)`
 * (`KEYLESS_CACHE_MS`, 2 s unless set) in this isolate, so its unsigned
 * appends cost no extra round trip; this isolate forgets that as soon as it
 * sees a Wire that changes the sender's keys, and other isolates within that
 * window — which is why a key registration is answered only once the window
 * has passed (`holdMs` of `signedDraft`): when its 201 arrives, every isolate
 * requires the signature.
 */

/** A key as its directory keeps it: every key a sender ever registered, with its status now. */
export interface SignerKey {
  kid: string;
  public_key: string;
  status: 'active' | 'retired' | 'revoked';
}

/** Where a module keeps signing keys for a family of senders (`ProtocolModule.signers`). */
export interface SignerDirectory {
  /** Whether `sender` is one of this module's identities (pure; cheap). */
  holds(sender: string): boolean;
  /**
   * Whose keys `draft` changes (a key registration, rotation, revocation),
   * and the key it registers if any, or null. A sender's first key may sign
   * its own registration (proof of possession); every later change must be
   * signed by a key already active.
   */
  keyChange(draft: Draft): { sender: string; registers: SignerKey | null } | null;
  /** Every key `sender` registered, read now from where the module keeps them. */
  keysOf(env: Env, sender: string): Promise<readonly SignerKey[]>;
}

export const UNKEYED_TTL_MS = 2000;

/** How long an isolate remembers a keyless sender (`KEYLESS_CACHE_MS`, 0 to 60 s). */
export function keylessCacheMs(env: Pick<Env, 'KEYLESS_CACHE_MS'>): number {
  return Math.min(intVar(env.KEYLESS_CACHE_MS, UNKEYED_TTL_MS, 0), 60_000);
}
const MAX_UNKEYED = 4096;
/** Senders known to have no key, until when (per isolate). */
const unkeyed = new Map<string, number>();
/**
 * Senders whose keys this isolate saw change, until when: not remembered as
 * keyless meanwhile, lest an append racing a first registration (looked up
 * just before it is stored) keep the sender "keyless" after it.
 */
const changing = new Map<string, number>();

function remember(map: Map<string, number>, sender: string, until: number): void {
  if (map.size >= MAX_UNKEYED) map.clear();
  map.set(sender, until);
}

/**
 * The members of `draft` its signature covers, absent ones as null: what a
 * client signs when the server built the Wire (`unsigned` in a refusal).
 */
export function signable(draft: Draft): ProblemObject {
  const members: Record<string, unknown> = {};
  const fields = draft as unknown as Record<string, unknown>;
  for (const field of SIGNED_FIELDS) members[field] = fields[field] ?? null;
  return members;
}

function signatureRequired(sender: string, keys: readonly SignerKey[], draft: Draft): Failure {
  const active = keys.filter((k) => k.status === 'active').map((k) => k.kid);
  const accepted =
    active.length > 0
      ? `one of its active keys: ${active.map((k) => `"${k}"`).join(', ')}`
      : 'an active key, but all its keys are retired or revoked: an admin must register a new one';
  return fail(
    'signature-required',
    `${sender} has registered signing keys, so its Wires must carry sig {kid, alg: "Ed25519", value} by ${accepted}`,
    { extra: { sender, accepted_kids: active, unsigned: signable(draft) } },
  );
}

function invalid(detail: string, kid: string, reason: string, keys: readonly SignerKey[]): Failure {
  const active = keys.filter((k) => k.status === 'active').map((k) => k.kid);
  return fail('signature-invalid', detail, {
    errors: [{ path: 'sig', message: detail }],
    extra: { kid, reason, accepted_kids: active },
  });
}

/**
 * A deployment's rule that some Wires must be signed in the committed form
 * (`sig.salt`, `protocol/signature.ts`): why this one must, or null. The
 * deployment supplies it (its entry points pass the same one), so every
 * append path applies it alike; the kernel only asks.
 */
export type CommitmentRule = (draft: Draft) => string | null;

export interface SignatureOptions {
  commitmentRequired?: CommitmentRule | undefined;
  now?: number | undefined;
}

function commitmentRequired(draft: Draft, why: string): Failure {
  const detail = `sig.salt: ${why}, so its Wires must be signed in the committed form: sig {kid, alg, value, salt} over payload_commitment = base64url(SHA-256(salt ‖ RFC 8785 JSON of payload)) in place of payload (the SDK and CLI sign so)`;
  return fail('signature-invalid', detail, {
    errors: [{ path: 'sig.salt', message: detail }],
    extra: { kid: draft.sig?.kid ?? null, reason: 'commitment-required' },
  });
}

/** Checks `draft`'s signature against its sender's keys: null when it may be appended. */
export async function checkSignature(
  draft: Draft,
  env: Env,
  registry: Registry,
  options: SignatureOptions = {},
): Promise<Failure | null> {
  const now = options.now ?? Date.now();
  const ttl = keylessCacheMs(env);
  // A plain-form signature where the deployment wants the committed one: refused
  // whoever signed it, before any key is looked up.
  const plain = draft.sig !== undefined && draft.sig.salt === undefined;
  const why = plain ? (options.commitmentRequired?.(draft) ?? null) : null;
  if (why !== null) return commitmentRequired(draft, why);
  let change: ReturnType<SignerDirectory['keyChange']> = null;
  for (const d of registry.signerDirectories) change ??= d.keyChange(draft);
  if (change !== null) {
    unkeyed.delete(change.sender);
    remember(changing, change.sender, now + ttl);
  }
  const directory = registry.signerDirectories.find((d) => d.holds(draft.sender)) ?? null;
  const sig = draft.sig;
  if (directory === null) {
    if (sig === undefined) return null;
    return invalid(
      `sig: ${draft.sender} cannot register signing keys, so kid "${sig.kid}" names no key of it`,
      sig.kid,
      'unknown-kid',
      [],
    );
  }
  if (sig === undefined && (unkeyed.get(draft.sender) ?? 0) > now) return null;
  let keys: readonly SignerKey[];
  try {
    keys = await directory.keysOf(env, draft.sender);
  } catch (error) {
    // Unknown keys are no reason to let a Wire through: refuse, and the client retries.
    console.error('signature guard: key lookup failed', draft.sender, error);
    return fail(
      'coordination-unavailable',
      `the signing keys of ${draft.sender} could not be read; retry`,
    );
  }
  if (keys.length === 0) {
    if ((changing.get(draft.sender) ?? 0) <= now) {
      if (ttl > 0) remember(unkeyed, draft.sender, now + ttl);
    }
    if (sig === undefined) return null;
  } else {
    unkeyed.delete(draft.sender);
  }
  if (sig === undefined) return signatureRequired(draft.sender, keys, draft);
  // A first key may sign its own registration: proof that the sender holds it.
  const own = keys.length === 0 && change?.sender === draft.sender ? change.registers : null;
  const key = keys.find((k) => k.kid === sig.kid) ?? (own?.kid === sig.kid ? own : undefined);
  if (key === undefined) {
    return invalid(
      `sig.kid: "${sig.kid}" is not a key ${draft.sender} registered`,
      sig.kid,
      'unknown-kid',
      keys,
    );
  }
  if (key.status !== 'active') {
    const how = key.status === 'revoked' ? 'revoked' : 'retired by a rotation';
    return invalid(
      `sig.kid: key "${sig.kid}" of ${draft.sender} was ${how}; sign with an active key`,
      sig.kid,
      key.status,
      keys,
    );
  }
  if (!(await signatureVerifies(draft, sig, key.public_key))) {
    return invalid(
      `sig.value: not a valid Ed25519 signature by key "${sig.kid}" of ${draft.sender} over this Wire (RFC 8785 JSON of wire, wire_id, stream_id, correlation_id, causation_id, type, sender, ts and ${sig.salt === undefined ? 'payload' : 'payload_commitment = base64url(SHA-256(salt ‖ RFC 8785 JSON of payload))'})`,
      sig.kid,
      'bad-signature',
      keys,
    );
  }
  return null;
}

/** The Wire to store, and how long its answer must wait (a key registration: see `keylessCacheMs`). */
export interface SignedDraft {
  draft: Draft;
  /** Ms to hold the answer after the Wire is stored: until no isolate can still deem its sender keyless. */
  holdMs?: number;
}

function accepted(draft: Draft, env: Env, registry: Registry): { ok: true } & SignedDraft {
  const registers = registry.signerDirectories.some((d) => d.keyChange(draft)?.registers);
  const holdMs = registers ? keylessCacheMs(env) : 0;
  return holdMs > 0 ? { ok: true, draft, holdMs } : { ok: true, draft };
}

export interface SignedDraftOptions extends SignatureOptions {
  /** What the request offered (`SIGNATURES_HEADER`). */
  offers?: readonly OfferedSignature[];
  /** Offers already taken by an earlier Wire of the same request (each signs one Wire). */
  used?: Set<number>;
  /** Wire id prefixes reserved for derived Wires: an offer may not choose one. */
  reserved?: readonly string[];
}

/**
 * The Wire an entry point built, as it may be stored: `draft` itself when its
 * sender needs no signature or it carries one, else `draft` signed by the first
 * offered signature that verifies over it with the offer's `wire_id` and `ts`
 * (the members a server mints anew when a client repeats a request; every
 * other member must be the same as in the Wire the client signed), or why not.
 * Offers cost nothing for a sender without keys: they are tried only after
 * the unsigned Wire was refused for want of a signature.
 */
export async function signedDraft(
  draft: Draft,
  env: Env,
  registry: Registry,
  options: SignedDraftOptions = {},
): Promise<Result<SignedDraft>> {
  const refused = await checkSignature(draft, env, registry, options);
  if (refused === null) return accepted(draft, env, registry);
  const offers = options.offers ?? [];
  if (refused.code !== 'signature-required' || draft.sig !== undefined || offers.length === 0)
    return refused;
  const reasons: string[] = [];
  for (const [i, offer] of offers.entries()) {
    if (options.used?.has(i)) continue;
    const taken =
      offer.wire_id === draft.wire_id
        ? null
        : reservedWireIdProblem(offer.wire_id, options.reserved ?? []);
    if (taken !== null) {
      reasons.push(`offer ${i}: ${taken}`);
      continue;
    }
    const candidate: Draft = { ...draft, wire_id: offer.wire_id, ts: offer.ts, sig: offer.sig };
    const problem = await checkSignature(candidate, env, registry, options);
    if (problem === null) {
      options.used?.add(i);
      return accepted(candidate, env, registry);
    }
    reasons.push(`offer ${i}: ${problem.detail}`);
  }
  const detail = `${SIGNATURES_HEADER}: none of the ${offers.length} signature(s) offered signs this Wire of ${draft.sender} (each must be over \`unsigned\` with the offer's wire_id and ts, every other member the same): ${reasons.join('; ')}`;
  return fail('signature-invalid', detail, {
    errors: [{ path: SIGNATURES_HEADER, message: detail }],
    extra: {
      reason: 'no-offer-matches',
      accepted_kids: refused.extra?.accepted_kids ?? [],
      unsigned: signable(draft),
    },
  });
}
