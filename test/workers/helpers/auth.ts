import { env } from 'cloudflare:test';
import type { Scope } from '../../../src/api/auth/claims';
import { issueToken } from '../../../src/api/auth/tokens';

const cache = new Map<string, string>();

/** Every scope: what most tests want when auth is not the subject. */
export const ALL_SCOPES: Scope[] = ['append', 'read', 'claim', 'admin'];

export interface TokenOptions {
  sub?: string;
  scopes?: Scope[];
  roles?: string[];
  streams?: string[];
  /** Seconds until expiry; negative mints an already expired token. */
  expiresIn?: number;
  /** Sign with another secret (a token "from another key"). */
  secret?: string;
}

/** Mints a bearer token with the test secret from vitest.config.ts. */
export async function tokenFor(options: TokenOptions = {}): Promise<string> {
  const secret = options.secret ?? env.TOKEN_SECRET;
  if (!secret) throw new Error('TOKEN_SECRET is not bound in vitest.config.ts');
  const now = Math.floor(Date.now() / 1000);
  const { token } = await issueToken(
    secret,
    {
      sub: options.sub ?? 'agent:test',
      scopes: options.scopes ?? ALL_SCOPES,
      roles: options.roles ?? [],
      ...(options.streams ? { streams: options.streams } : {}),
      expiresInSeconds: options.expiresIn ?? 3600,
    },
    now,
  );
  return token;
}

/**
 * `Authorization: Bearer …` for `sub` with `scopes` (all by default), e.g.
 * `SELF.fetch(url, { headers: { ...(await authHeaders()), 'Content-Type': 'application/json' } })`.
 * A Wire's `sender` must equal `sub`.
 */
export async function authHeaders(
  sub = 'agent:test',
  scopes: Scope[] = ALL_SCOPES,
  more: Omit<TokenOptions, 'sub' | 'scopes'> = {},
): Promise<Record<string, string>> {
  // Cached per identity: suites post thousands of Wires and a token lives an hour.
  const key = JSON.stringify([sub, scopes, more]);
  let token = cache.get(key);
  if (!token) {
    token = await tokenFor({ ...more, sub, scopes });
    cache.set(key, token);
  }
  return { Authorization: `Bearer ${token}` };
}

/** Headers for a coordinator identity, which may post orchestration Wires. */
export async function coordinatorHeaders(
  sub = 'coordinator:test',
): Promise<Record<string, string>> {
  return authHeaders(sub, ALL_SCOPES, { roles: ['coordinator'] });
}
