import type { Principal } from './claims';

/**
 * Bearer tokens already verified in this isolate, so HS256 (and the admin
 * secret's constant-time compare) runs once per token rather than once per
 * request. Only successes are kept, keyed by the token string and the secrets
 * they were checked against, and an entry is used only before its `exp`: a
 * hit answers exactly what a fresh verification would.
 */
const MAX_ENTRIES = 1024;

interface Entry {
  principal: Principal;
  adminToken: string | undefined;
  tokenSecret: string | undefined;
}

const verified = new Map<string, Entry>();

type Secrets = { ADMIN_TOKEN?: string | undefined; TOKEN_SECRET?: string | undefined };

export function cachedPrincipal(token: string, env: Secrets, nowMs: number): Principal | null {
  const entry = verified.get(token);
  if (!entry) return null;
  const stale =
    entry.principal.exp * 1000 <= nowMs ||
    entry.adminToken !== env.ADMIN_TOKEN ||
    entry.tokenSecret !== env.TOKEN_SECRET;
  if (stale) {
    verified.delete(token);
    return null;
  }
  return entry.principal;
}

export function rememberPrincipal(token: string, env: Secrets, principal: Principal): void {
  if (verified.size >= MAX_ENTRIES) {
    // Maps iterate in insertion order: drop the oldest entry.
    const oldest = verified.keys().next();
    if (!oldest.done) verified.delete(oldest.value);
  }
  verified.set(token, { principal, adminToken: env.ADMIN_TOKEN, tokenSecret: env.TOKEN_SECRET });
}
