import { Hono } from 'hono';
import * as z from 'zod';
import { fail } from '../../protocol';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';
import { Scope, Subject, TokenClaims } from './claims';
import { principalOf } from './require';
import { issueToken, MAX_TOKEN_SECONDS } from './tokens';

/** Tickets open one WebSocket within a minute; they never work elsewhere. */
export const TICKET_SECONDS = 60;

const TokenBody = z.strictObject({
  sub: Subject,
  scopes: z.array(Scope).min(1).max(4),
  roles: TokenClaims.shape.roles.optional(),
  streams: TokenClaims.shape.streams,
  expires_in: z
    .number()
    .int()
    .min(60, 'expires_in must be at least 60 seconds')
    .max(MAX_TOKEN_SECONDS, `expires_in must be at most ${MAX_TOKEN_SECONDS} seconds (30 days)`)
    .default(24 * 3600),
});

/** `POST /v1/tokens` (admin) and `POST /v1/tickets` (any reader). */
export const authRoutes = new Hono<AppEnv>();

authRoutes.post('/tokens', async (c) => {
  if (!c.env.TOKEN_SECRET) {
    return problem(c, fail('forbidden', 'this deployment has no TOKEN_SECRET to sign tokens with'));
  }
  const body = await readJsonBody(c, 4096);
  if (!body.ok) return problem(c, body);
  const parsed = TokenBody.safeParse(body.body);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({
      path: i.path.map(String).join('.') || '(body)',
      message: i.message,
    }));
    return problem(
      c,
      fail('invalid-body', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors }),
    );
  }
  const { sub, scopes, roles, streams, expires_in } = parsed.data;
  const now = Math.floor(Date.now() / 1000);
  const { token, exp } = await issueToken(
    c.env.TOKEN_SECRET,
    {
      sub,
      scopes,
      roles: roles ?? [],
      ...(streams ? { streams } : {}),
      expiresInSeconds: expires_in,
    },
    now,
  );
  return c.json(
    {
      token,
      sub,
      scopes,
      roles: roles ?? [],
      streams: streams ?? null,
      expires_at: new Date(exp * 1000).toISOString(),
    },
    201,
    { 'Cache-Control': 'no-store' },
  );
});

authRoutes.post('/tickets', async (c) => {
  if (!c.env.TOKEN_SECRET) {
    return problem(
      c,
      fail('forbidden', 'this deployment has no TOKEN_SECRET to sign tickets with'),
    );
  }
  const principal = principalOf(c);
  const now = Math.floor(Date.now() / 1000);
  const { token, exp } = await issueToken(
    c.env.TOKEN_SECRET,
    {
      sub: principal.sub,
      scopes: ['read'],
      roles: principal.roles,
      ...(principal.streams ? { streams: principal.streams } : {}),
      purpose: 'ws',
      expiresInSeconds: TICKET_SECONDS,
    },
    now,
  );
  return c.json({ ticket: token, expires_at: new Date(exp * 1000).toISOString() }, 201, {
    'Cache-Control': 'no-store',
  });
});
