import { Hono } from 'hono';
import * as z from 'zod';
import { fail } from '../../protocol';
import type { AppEnv } from '../app-env';
import { bodyProblem } from '../body-problem';
import { problem } from '../problem';
import { readJsonBody, readOptionalJsonBody } from '../read-json-body';
import { Scope, Subject, TokenClaims } from './claims';
import { principalOf, requireScope } from './require';
import { issueToken, MAX_TOKEN_SECONDS } from './tokens';

/** Tickets open one WebSocket within a minute; they never work elsewhere. */
export const TICKET_SECONDS = 60;

/** `POST /v1/tokens` */
export const TokenBody = z.strictObject({
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
  // Also checked by authenticate(); kept here so the rule holds on its own.
  const denied = requireScope(c, 'admin');
  if (denied) return denied;
  if (!c.env.TOKEN_SECRET) {
    return problem(c, fail('forbidden', 'this deployment has no TOKEN_SECRET to sign tokens with'));
  }
  const body = await readJsonBody(c, 4096);
  if (!body.ok) return problem(c, body);
  const parsed = TokenBody.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const { sub, scopes, roles, streams, expires_in } = parsed.data;
  const outside = widerThanCaller(principalOf(c).streams, streams);
  if (outside) return problem(c, fail('forbidden', outside));
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

/** `POST /v1/tickets` takes no parameters: no body, or an empty JSON object. */
export const TicketBody = z.strictObject({});

authRoutes.post('/tickets', async (c) => {
  const denied = requireScope(c, 'read');
  if (denied) return denied;
  const sent = await readOptionalJsonBody(c, 256);
  if (!sent.ok) return problem(c, sent);
  const parsed = TicketBody.safeParse(sent.body ?? {});
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
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
      // Never outlives the token it came from.
      expiresInSeconds: Math.max(1, Math.min(TICKET_SECONDS, principal.exp - now)),
    },
    now,
  );
  return c.json({ ticket: token, expires_at: new Date(exp * 1000).toISOString() }, 201, {
    'Cache-Control': 'no-store',
  });
});

/**
 * Why a token limited to stream prefixes may not mint `requested`, or null:
 * what it mints must be limited too, each prefix inside one of its own.
 */
function widerThanCaller(
  mine: string[] | undefined,
  requested: string[] | undefined,
): string | null {
  if (!mine) return null;
  const within = (p: string) => mine.some((m) => p.startsWith(m));
  if (requested?.every(within)) return null;
  return `a token limited to the stream prefixes [${mine.join(', ')}] may only mint tokens limited to prefixes within them${requested ? `; [${requested.filter((p) => !within(p)).join(', ')}] are not` : ' (give "streams")'}`;
}
