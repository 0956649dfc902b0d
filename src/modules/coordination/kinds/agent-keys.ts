import * as z from 'zod';
import type { SignerDirectory, SignerKey } from '../../../kernel/signatures';
import {
  type Draft,
  type Failure,
  fail,
  Kid,
  PublicKey,
  SIG_ALG,
  streamIdProblem,
  type Wire,
} from '../../../protocol';
import { streamStub } from '../../../stream/stub';

/**
 * An agent's signing keys (issue 31, agent-signed Wires), kept on its own
 * `agent:<id>` stream as Wires like everything else, so the key history is
 * anchored and an auditor rebuilds it from the mirror:
 *
 *   agent.key.registered  {kid, alg, public_key}               a new active key
 *   agent.key.rotated     {kid, alg, public_key, previous_kid} new key active, previous retired
 *   agent.key.revoked     {kid, reason?}                       the key is refused from now on
 *
 * Posted by the agent itself or an admin (`ownerOrAdmin`); once the
 * agent has a key, its own key Wires must be signed like all its Wires
 * (`kernel/signatures.ts`), so a stolen token alone cannot swap its keys.
 */
const Alg = z.literal(SIG_ALG, { error: 'alg must be "Ed25519"' });
export const KEY_PAYLOADS = {
  'agent.key.registered': z.looseObject({ kid: Kid, alg: Alg, public_key: PublicKey }),
  'agent.key.rotated': z.looseObject({
    kid: Kid,
    alg: Alg,
    public_key: PublicKey,
    previous_kid: Kid,
  }),
  'agent.key.revoked': z.looseObject({ kid: Kid, reason: z.string().max(500).optional() }),
};
type KeyType = keyof typeof KEY_PAYLOADS;

export const isKeyType = (type: string): type is KeyType => Object.hasOwn(KEY_PAYLOADS, type);

/** A key in the agent's history: the stream_seq of the Wires that changed it. */
export interface KeyRecord extends SignerKey {
  registered_seq: number;
  retired_seq: number | null;
  revoked_seq: number | null;
}

const text = (payload: Wire['payload'], field: string) => String(payload[field] ?? '');

/**
 * The agent's own key Wire, judged against its keys as they are when it is
 * decided. The signature guard looked them up before (`kernel/signatures.ts`):
 * a revocation, rotation or first registration stored since then must hold
 * for a key change, or a revoked key could still add or swap keys. The guard
 * verified the signature over the key `sig.kid` names; here that key must
 * still be active (a first key may sign its own registration).
 */
function signerProblem(wire: Wire, keys: readonly KeyRecord[]): Failure | null {
  if (wire.sender !== wire.stream_id || keys.length === 0) return null;
  const accepted_kids = keys.filter((k) => k.status === 'active').map((k) => k.kid);
  const sig = wire.sig;
  if (sig === undefined) {
    return fail(
      'signature-required',
      `${wire.stream_id} has registered signing keys, so its key Wires must carry sig by one of its active keys: ${accepted_kids.map((k) => `"${k}"`).join(', ') || 'none (an admin must register a new one)'}`,
      { extra: { sender: wire.sender, accepted_kids } },
    );
  }
  const signer = keys.find((k) => k.kid === sig.kid);
  if (signer?.status === 'active') return null;
  const detail = signer
    ? `sig.kid: key "${sig.kid}" of ${wire.stream_id} was ${signer.status === 'revoked' ? 'revoked' : 'retired by a rotation'}; sign with an active key`
    : `sig.kid: "${sig.kid}" is not a key ${wire.stream_id} registered`;
  return fail('signature-invalid', detail, {
    errors: [{ path: 'sig.kid', message: detail }],
    extra: { kid: sig.kid, reason: signer?.status ?? 'unknown-kid', accepted_kids },
  });
}

/** Refusals of a key Wire given the history so far (its payload already matches its schema). */
export function keyProblem(wire: Wire, keys: readonly KeyRecord[]): Failure | null {
  const signer = signerProblem(wire, keys);
  if (signer) return signer;
  const kid = text(wire.payload, 'kid');
  const known = keys.find((k) => k.kid === kid);
  const refuse = (detail: string) => fail('invalid-transition', detail, { extra: { kid } });
  if (wire.type === 'agent.key.revoked') {
    if (!known) return refuse(`${wire.stream_id} has no key "${kid}"`);
    return known.status === 'revoked' ? refuse(`key "${kid}" is already revoked`) : null;
  }
  if (known) return refuse(`kid "${kid}" is already registered (${known.status}); pick a new kid`);
  const same = keys.find((k) => k.public_key === text(wire.payload, 'public_key'));
  if (same) return refuse(`this public_key is already registered as "${same.kid}"`);
  if (wire.type === 'agent.key.rotated') {
    const previous = text(wire.payload, 'previous_kid');
    const old = keys.find((k) => k.kid === previous);
    if (old?.status !== 'active') {
      return refuse(
        `previous_kid "${previous}" is ${old ? old.status : 'not a key of this agent'}; only an active key is rotated`,
      );
    }
  }
  return null;
}

/** The history after a key Wire (others leave it as is). */
export function evolveKeys(keys: readonly KeyRecord[], wire: Wire): KeyRecord[] {
  if (!isKeyType(wire.type)) return [...keys];
  const kid = text(wire.payload, 'kid');
  const seq = wire.stream_seq;
  if (wire.type === 'agent.key.revoked') {
    return keys.map((k) =>
      k.kid === kid ? { ...k, status: 'revoked' as const, revoked_seq: seq } : k,
    );
  }
  const previous = wire.type === 'agent.key.rotated' ? text(wire.payload, 'previous_kid') : null;
  const kept = keys.map((k) =>
    k.kid === previous ? { ...k, status: 'retired' as const, retired_seq: seq } : k,
  );
  const key: KeyRecord = {
    kid,
    public_key: text(wire.payload, 'public_key'),
    status: 'active',
    registered_seq: seq,
    retired_seq: null,
    revoked_seq: null,
  };
  return [...kept, key];
}

/** The coordination module's `signers`: `agent:<id>` senders, keys read from `agent:<id>`. */
export const agentSigners: SignerDirectory = {
  holds: (sender) => sender.startsWith('agent:') && streamIdProblem(sender) === null,
  keyChange(draft: Draft) {
    if (!isKeyType(draft.type) || !draft.stream_id.startsWith('agent:')) return null;
    const registers =
      draft.type === 'agent.key.revoked'
        ? null
        : {
            kid: text(draft.payload, 'kid'),
            public_key: text(draft.payload, 'public_key'),
            status: 'active' as const,
          };
    return { sender: draft.stream_id, registers };
  },
  async keysOf(env, sender) {
    const view = await streamStub(env, sender).coordination();
    const keys = (view.state as { keys?: KeyRecord[] } | null)?.keys ?? [];
    return keys.map(({ kid, public_key, status }) => ({ kid, public_key, status }));
  },
};
