import type { Context } from 'hono';
import { type Draft, fail } from '../../protocol';
import type { AppEnv } from '../app-env';
import { takeForSender } from '../limits/rate-limiter';
import { problem } from '../problem';
import { appendRightsProblem } from './append-rights';
import { principalOf } from './require';

/**
 * Everything an append must pass after parsing and before the stream sees it:
 * rights (403), secrets (422) and the sender's rate (429 + Retry-After).
 * Returns the problem response, or null to go on.
 */
export async function guardAppend(c: Context<AppEnv>, draft: Draft): Promise<Response | null> {
  const principal = principalOf(c);
  const denied = appendRightsProblem(principal, draft);
  if (denied) return problem(c, denied);
  const rate = await takeForSender(c.env, principal.sub);
  if (!rate.ok) {
    return problem(
      c,
      fail(
        'rate-limited',
        `"${principal.sub}" is sending too fast; retry in ${rate.retryAfterSeconds} s`,
        {
          extra: { retry_after_seconds: rate.retryAfterSeconds },
        },
      ),
      { 'Retry-After': String(rate.retryAfterSeconds) },
    );
  }
  return null;
}
