import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { serveStatic } from './static-files';

/**
 * `GET /v1/openapi.json` (public, like /v1/schema/wire.json) and the API
 * reference at `GET /docs`. Both are generated at build time by
 * tools/build-openapi.mjs from the zod schemas the routes validate with and
 * served as static assets (see `serveStatic`), so the Worker carries no
 * schema code and not the document. The page is self-contained (no CDN, no
 * fonts): it works with no network.
 */
export const reference = new Hono<AppEnv>();

reference.get('/v1/openapi.json', (c) => serveStatic(c, '/reference/openapi.json'));

reference.get('/docs', (c) =>
  serveStatic(c, '/reference/docs.html', {
    // Everything it needs is inline or same-origin; nothing else may load.
    'Content-Security-Policy':
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  }),
);
