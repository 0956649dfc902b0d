import type { Context, MiddlewareHandler } from 'hono';
import { fail, type Result } from '../../protocol';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import { isAdminSecret } from './admin-secret';
import { hasScope, mayTouchStream, type Principal, type Scope } from './claims';
import { type Credential, credentialOf, isWebSocketPath, WS_SUBPROTOCOL } from './credentials';
import { spendTicket } from './ticket-ledger';
import { verifyToken } from './tokens';
import { cachedPrincipal, rememberPrincipal } from './verified-cache';

const PUBLIC = new Set([
  'GET /v1/schema/wire.json',
  'HEAD /v1/schema/wire.json',
  'GET /v1/openapi.json',
  'HEAD /v1/openapi.json',
  // Seed 001's published typed-message contract (JSON Schema draft-07).
  'GET /v1/schema/heimdall/message-schema.json',
  'HEAD /v1/schema/heimdall/message-schema.json',
]);
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="wirestream"' };

/** The bootstrap identity behind `ADMIN_TOKEN`. */
const ADMIN: Principal = {
  sub: 'human:admin',
  roles: ['admin'],
  scopes: ['admin'],
  admin: true,
  exp: Number.MAX_SAFE_INTEGER,
};

async function principalOf(
  env: AppEnv['Bindings'],
  credential: Credential,
): Promise<Result<{ principal: Principal }>> {
  switch (credential.kind) {
    case 'none':
      return fail(
        'unauthenticated',
        'no credential: send "Authorization: Bearer <token>" (tokens come from POST /v1/tokens)',
      );
    case 'malformed':
      return fail('unauthenticated', credential.detail);
    case 'bearer': {
      const cached = cachedPrincipal(credential.token, env, Date.now());
      if (cached) return { ok: true, principal: cached };
      if (await isAdminSecret(credential.token, env.ADMIN_TOKEN)) {
        rememberPrincipal(credential.token, env, ADMIN);
        return { ok: true, principal: ADMIN };
      }
      break;
    }
    case 'ticket':
    case 'subprotocol':
      break;
    default:
      credential satisfies never;
  }
  if (!env.TOKEN_SECRET) {
    return fail('unauthenticated', 'this deployment has no TOKEN_SECRET, so no token can be valid');
  }
  const verified = await verifyToken(env.TOKEN_SECRET, credential.token);
  if (!verified.ok) return verified;
  const purpose = verified.principal.purpose;
  if (credential.kind === 'ticket' && purpose !== 'ws') {
    return fail(
      'unauthenticated',
      '?ticket= takes a ticket from POST /v1/tickets, never a long-lived token',
    );
  }
  // A ticket is spent where it is accepted, in ?ticket= (authenticate);
  // taken as a bearer token or subprotocol it could be replayed.
  if (credential.kind !== 'ticket' && purpose === 'ws') {
    return fail(
      'unauthenticated',
      'a ticket opens a WebSocket as ?ticket=<ticket> only, never as a bearer token or subprotocol',
    );
  }
  if (credential.kind === 'bearer') rememberPrincipal(credential.token, env, verified.principal);
  return verified;
}

/** The scope a route needs unless it asks for a narrower one (requireScope). */
function defaultScope(method: string, path: string): Scope | 'write' {
  if (path === '/v1/tokens' || path.startsWith('/v1/admin/')) return 'admin';
  // /mcp needs only `read`: each tool re-enters the route it calls, which asks its own scope.
  if (method === 'GET' || method === 'HEAD' || path === '/v1/tickets' || path === '/mcp') {
    return 'read';
  }
  if (/^\/v1\/streams\/[^/]+\/wires$/.test(path)) return 'append';
  return 'write';
}

/** The stream a path names, if any: `/v1/streams/{stream_id}[/…]`, `/v1/coordination/{stream_id}`. */
function streamOfPath(path: string): string | null {
  const match = /^\/v1\/(?:streams|coordination)\/([^/]+)/.exec(path);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

interface RouteFacts {
  ws: boolean;
  scope: Scope | 'write';
  streamId: string | null;
}

/**
 * What authorization needs from a method and path, remembered for the last
 * one seen: a client appending to one stream sends the same path each time,
 * and these are three regexes and a decode that depend on nothing else.
 */
let lastRoute: { key: string; facts: RouteFacts } | undefined;

function routeOf(key: string, method: string, path: string): RouteFacts {
  if (lastRoute?.key === key) return lastRoute.facts;
  const ws = isWebSocketPath(path);
  const facts = {
    ws,
    scope: ws ? 'read' : defaultScope(method, path),
    streamId: streamOfPath(path),
  };
  lastRoute = { key, facts };
  return facts;
}

export function scopeProblem(principal: Principal, scope: Scope | 'write') {
  const allowed =
    scope === 'write'
      ? hasScope(principal, 'append') || hasScope(principal, 'claim')
      : hasScope(principal, scope);
  if (allowed) return null;
  const need = scope === 'write' ? '"append" or "claim"' : `"${scope}"`;
  return fail(
    'forbidden',
    `the token's scopes [${principal.scopes.join(', ')}] do not include ${need}`,
    {
      extra: { required_scope: scope },
    },
  );
}

export function streamProblem(principal: Principal, streamId: string) {
  if (mayTouchStream(principal, streamId)) return null;
  return fail(
    'forbidden',
    `stream "${streamId}" is outside the token's stream prefixes [${(principal.streams ?? []).join(', ')}]`,
    { extra: { stream_id: streamId } },
  );
}

/** The 101 must name the subprotocol the browser offered alongside its token. */
function withSubprotocol(res: Response): Response {
  const headers = new Headers(res.headers);
  headers.set('Sec-WebSocket-Protocol', WS_SUBPROTOCOL);
  return new Response(null, { status: 101, headers, webSocket: res.webSocket });
}

/**
 * Guards every `/v1/*` route but the public schemas: authenticates (401), applies
 * the route's default scope and the token's stream prefixes (403), and puts the
 * caller in `c.get('principal')`.
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    const url = c.req.url;
    // The path the router matched (hono decodes it first), never the raw one:
    // judged on the raw path, /v1/%74okens would be routed to /v1/tokens but
    // authorized as an unknown path.
    const path = c.req.path;
    const method = c.req.method;
    const key = `${method} ${path}`;
    if (PUBLIC.has(key)) return next();
    const credential = credentialOf(c.req.raw, path, url);
    const who = await principalOf(c.env, credential);
    if (!who.ok) return problem(c, who, CHALLENGE);
    const principal = who.principal;
    const { ws, scope, streamId } = routeOf(key, method, path);
    if (principal.purpose === 'ws' && !ws) {
      return problem(c, fail('unauthenticated', 'a ticket only opens a WebSocket'), CHALLENGE);
    }
    const scopeDenied = scopeProblem(principal, scope);
    if (scopeDenied) return problem(c, scopeDenied);
    const streamDenied = streamId === null ? null : streamProblem(principal, streamId);
    if (streamDenied) return problem(c, streamDenied);
    // Spent once it is known to be good for this socket, so a refusal above
    // does not burn it; the route's own checks (after_seq, caps) may still.
    if (
      credential.kind === 'ticket' &&
      !(await spendTicket(c.env, principal.sub, credential.token, principal.exp))
    ) {
      return problem(
        c,
        fail(
          'unauthenticated',
          'this ticket was used already: a ticket opens one WebSocket (POST /v1/tickets for another)',
        ),
        CHALLENGE,
      );
    }
    c.set('principal', principal);
    await next();
    if (credential.kind === 'subprotocol' && c.res.status === 101) c.res = withSubprotocol(c.res);
  };
}
