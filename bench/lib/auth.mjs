// Bearer tokens for the bench identity, signed with the secret the bench binds
// as TOKEN_SECRET in its own Miniflare (see runtime.mjs). Peers ignore them.
import { sign } from 'hono/jwt';
import { BENCH_TOKEN_SECRET } from './runtime.mjs';

export const BENCH_SENDER = 'agent:bench';

export async function benchToken(sub = BENCH_SENDER, extra = {}) {
  const now = Math.floor(Date.now() / 1000);
  return sign(
    {
      sub,
      roles: [],
      scopes: ['append', 'read', 'claim', 'admin'],
      iat: now,
      exp: now + 3600,
      ...extra,
    },
    BENCH_TOKEN_SECRET,
    'HS256',
  );
}

export async function benchHeaders(sub = BENCH_SENDER) {
  return { Authorization: `Bearer ${await benchToken(sub)}` };
}
