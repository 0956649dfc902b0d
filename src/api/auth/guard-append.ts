import type { Context } from 'hono';
import type { AppendGuards } from '../../kernel/append';
import type { SignedDraft } from '../../kernel/signatures';
import { REGISTRY } from '../../modules';
import { privacyProblem } from '../../private/config';
import { sealingProblem } from '../../private/sealer';
import { signedDraftGuard } from '../../private/signature-rule';
import { type Draft, type Failure, fail, type Result, SIGNATURES_HEADER } from '../../protocol';
import type { AppEnv } from '../app-env';
import { takeForSender } from '../limits/rate-limiter';
import { appendRightsProblem } from './append-rights';
import { offeredSignatures } from './offered-signatures';
import { principalOf } from './require';

/**
 * The guards of an append made with a bearer token: rights and secrets (403,
 * 422), the sender's signature once it has keys (403; a Wire the server
 * builds may be signed by a signature offered in `Wirestream-Signatures`),
 * then the sender's rate (429, `retry_after_seconds` for Retry-After).
 */
export function tokenGuards(c: Context<AppEnv>): AppendGuards {
  const principal = principalOf(c);
  const offered = offeredSignatures(c.req.header(SIGNATURES_HEADER));
  const signed = offered.ok ? signedDraftGuard(c.env, offered.offers) : null;
  return {
    rights: (draft) => appendRightsProblem(principal, draft, REGISTRY) ?? privacyFailure(c, draft),
    async signature(draft): Promise<Result<SignedDraft>> {
      // Before the signature: a private Wire the deployment could not seal is a 503.
      const sealing = await sealingProblem(c.env, draft);
      if (sealing) return fail('private-payloads-unavailable', sealing);
      if (!offered.ok || signed === null) return offered as Failure;
      const result = await signed(draft);
      if (result.ok || result.code !== 'signature-required') return result;
      return {
        ...result,
        detail: `${result.detail}. \`unsigned\` is this Wire as the server built it: sign it and offer [{wire_id, ts, sig}] in the ${SIGNATURES_HEADER} header of the same request (the SDK and CLI do, with their key file)`,
      };
    },
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
 * 503, never public. (A private Wire signed in the plain form is the
 * signature guard's to refuse: `private/signature-rule.ts`.)
 */
function privacyFailure(c: Context<AppEnv>, draft: Draft): Failure | null {
  const problem = privacyProblem(c.env, draft);
  return problem === null ? null : fail('private-payloads-unavailable', problem);
}
