import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env';

/** `CORS_ORIGINS` as a list; an empty or missing value allows no browser origin. */
export function corsOrigins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/$/, ''))
    .filter((o) => o.length > 0);
}

/**
 * CORS limited to configured origins (preflights are answered before auth, so
 * a browser can learn it must send a token). https://hono.dev/docs/middleware/builtin/cors
 */
const corsMiddleware: MiddlewareHandler<AppEnv> = cors({
  origin: (origin, c) => (corsOrigins(c.env.CORS_ORIGINS).includes(origin) ? origin : null),
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'If-Match',
    'Idempotency-Key',
    'Wirestream-Signatures',
  ],
  // Freshness headers of the reads (read-support.ts) too: a page on another
  // origin can tell how current, and whether a read model is being rebuilt.
  exposeHeaders: [
    'ETag',
    'Location',
    'Retry-After',
    'Idempotent-Replay',
    'Wirestream-Watermark',
    'Wirestream-Watermark-Received-At',
    'Wirestream-Wait-For',
    'Wirestream-Stale-Models',
    'Wirestream-Rebuild-Id',
  ],
  maxAge: 600,
});

/**
 * Browsers send `Origin` on every CORS request; without one (agents, servers)
 * CORS headers mean nothing, and hono's cors would build a placeholder
 * Response per request to hold them. Such requests get `Vary: Origin` only.
 */
export const corsForApi: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('Origin') !== undefined) return corsMiddleware(c, next);
  await next();
  // Straight onto the response, as the security headers are: c.header() after
  // the handler copies the whole Response. A WebSocket 101 is never cached.
  if (c.res.status !== 101) c.res.headers.append('Vary', 'Origin');
};

/**
 * The headers hono's `secureHeaders()` sets with its defaults
 * (https://hono.dev/docs/middleware/builtin/secure-headers), as a fixed list:
 * its middleware looks up `c.res.headers` once per header; this does once.
 * test/workers/security-limits.test.ts compares the two.
 */
const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/**
 * Security headers on every response but a WebSocket 101, whose headers come
 * from the Durable Object and are immutable.
 */
export const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('Upgrade')?.toLowerCase() === 'websocket') return next();
  await next();
  const headers = c.res.headers;
  for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
  headers.delete('X-Powered-By');
};
