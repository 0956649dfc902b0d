import type { Env } from '../env';
import {
  type CommitmentRule,
  checkSignature,
  type SignedDraft,
  signedDraft,
} from '../kernel/signatures';
import { REGISTRY } from '../modules';
import type { Draft, Failure, OfferedSignature, Result } from '../protocol';
import { privateProjectOf } from './config';

/**
 * A private project's Wires must be signed in the committed form: the ledger
 * holds their payload sealed, so a signature over the payload itself could
 * not be checked from mirror data, while one over its commitment can
 * (`seal.ts`). The kernel's signature guard asks this rule (`CommitmentRule`).
 */
export function privateCommitmentRule(env: Pick<Env, 'PRIVATE_PROJECTS'>): CommitmentRule {
  return (draft) => {
    const project = privateProjectOf(env, draft);
    if (project === null) return null;
    return `${draft.stream_id} belongs to private project "${project}", whose payloads are sealed on the ledger`;
  };
}

/**
 * This deployment's signature guard, the one every entry point of the append
 * path passes (REST and module routes through `tokenGuards`, HCS-first ingest
 * through the TopicObject's listener): the kernel's check with the private
 * projects' commitment rule.
 */
export function signatureGuard(env: Env): (draft: Draft) => Promise<Failure | null> {
  const commitmentRequired = privateCommitmentRule(env);
  return (draft) => checkSignature(draft, env, REGISTRY, { commitmentRequired });
}

/**
 * The same guard for one request over the API (`api/auth/guard-append.ts`):
 * a Wire the server built may be signed by a signature the request offers
 * (`Wirestream-Signatures`); each offer signs at most one of its Wires.
 */
export function signedDraftGuard(
  env: Env,
  offers: readonly OfferedSignature[],
): (draft: Draft) => Promise<Result<SignedDraft>> {
  const commitmentRequired = privateCommitmentRule(env);
  const used = new Set<number>();
  const reserved = REGISTRY.derivedIds;
  return (draft) =>
    signedDraft(draft, env, REGISTRY, { commitmentRequired, offers, used, reserved });
}
