import type { Context } from 'hono';
import type { AppendGuards } from '../../kernel/append';
import { checkSignature } from '../../kernel/signatures';
import { REGISTRY } from '../../modules';
import { privacyProblem, privateProjectOf } from '../../private/config';
import { type Draft, type Failure, fail } from '../../protocol';
import type { AppEnv } from '../app-env';
import { takeForSender } from '../limits/rate-limiter';
import { appendRightsProblem } from './append-rights';
import { principalOf } from './require';

/**
 * The guards of an append made with a bearer token: rights and secrets (403,
 * 422), the sender's signature once it has keys (403), then the sender's
 * rate (429, `retry_after_seconds` for Retry-After).
 */
export function tokenGuards(c: Context<AppEnv>): AppendGuards {
  const principal = principalOf(c);
  return {
    rights: (draft) => appendRightsProblem(principal, draft, REGISTRY) ?? privacyFailure(c, draft),
    signature: (draft) => checkSignature(draft, c.env, REGISTRY),
    async rate() {
      const rate = await takeForSender(c.env, principal.sub);
      if (rate.ok) return null;
      return fail(
        'rate-limited',
        `"${principal.sub}" is sending too fast; retry in ${rate.retryAfterSeconds} s`,
        { extra: { retry_after_seconds: rate.retryAfterSeconds } },
      );
    },
  };
}

/**
 * A private project's Wire the deployment cannot encrypt (bad config, no KEK):
 * 503, never public. A private Wire signed in the plain form: 403, as its
 * signature would cover a payload the ledger only holds sealed.
 */
function privacyFailure(c: Context<AppEnv>, draft: Draft): Failure | null {
  const problem = privacyProblem(c.env, draft);
  if (problem !== null) return fail('private-payloads-unavailable', problem);
  const sig = draft.sig;
  const project = sig && sig.salt === undefined ? privateProjectOf(c.env, draft) : null;
  if (!sig || project === null) return null;
  const detail = `sig.salt: ${draft.stream_id} belongs to private project "${project}", whose payloads are sealed on the ledger, so its Wires must be signed in the committed form: sig {kid, alg, value, salt} over payload_commitment = base64url(SHA-256(salt ‖ RFC 8785 JSON of payload)) in place of payload (the SDK and CLI sign so)`;
  return fail('signature-invalid', detail, {
    errors: [{ path: 'sig.salt', message: detail }],
    extra: { kid: sig.kid, reason: 'commitment-required' },
  });
}
