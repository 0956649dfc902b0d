import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { DOCS_HTML, OPENAPI_JSON } from '../openapi.gen';

/**
 * `GET /v1/openapi.json` (public, like /v1/schema/wire.json) and the API
 * reference at `GET /docs`. Both are generated at build time by
 * tools/build-openapi.mjs from the zod schemas the routes validate with, so
 * the Worker carries two strings and no schema code. The page is
 * self-contained (no CDN, no fonts): it works with no network.
 */
export const reference = new Hono<AppEnv>();

reference.get('/v1/openapi.json', (c) =>
  c.body(OPENAPI_JSON, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }),
);

reference.get('/docs', (c) =>
  c.body(DOCS_HTML, 200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
    // Everything it needs is inline or same-origin; nothing else may load.
    'Content-Security-Policy':
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  }),
);
