import type { Context } from 'hono';
import { fail } from '../../protocol';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import { scopeProblem, streamProblem } from './authenticate';
import type { Principal, Scope } from './claims';

/** The authenticated caller; set by `authenticate()` on every guarded route. */
export function principalOf(c: Context<AppEnv>): Principal {
  return c.get('principal');
}

/**
 * A 403 problem response when the caller lacks `scope`, else null:
 * `const denied = requireScope(c, 'claim'); if (denied) return denied;`
 */
export function requireScope(c: Context<AppEnv>, scope: Scope): Response | null {
  const denied = scopeProblem(principalOf(c), scope);
  return denied ? problem(c, denied) : null;
}

/** A 403 problem response when `streamId` is outside the token's prefixes, else null. */
export function requireStream(c: Context<AppEnv>, streamId: string): Response | null {
  const denied = streamProblem(principalOf(c), streamId);
  return denied ? problem(c, denied) : null;
}

/**
 * A 403 problem response when the token is limited to stream prefixes, else
 * null: for routes that span every stream at once (topic listings, alerts,
 * the read-model rebuild).
 */
export function requireAllStreams(c: Context<AppEnv>, route: string): Response | null {
  const prefixes = principalOf(c).streams;
  if (!prefixes) return null;
  return problem(
    c,
    fail(
      'forbidden',
      `${route} spans every stream; a token limited to the stream prefixes [${prefixes.join(', ')}] may not use it`,
    ),
  );
}

/** A read that spans every stream: the read scope and a token not limited to stream prefixes. */
export function requireReadAll(c: Context<AppEnv>, route: string): Response | null {
  return requireScope(c, 'read') ?? requireAllStreams(c, route);
}
