import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { serveStatic } from './static-files';

/**
 * The dashboard (public/, its modules bundled into /js/dashboard.js by
 * tools/build-client.mjs): `/` and every file under it, forwarded to the
 * static assets (see `serveStatic`). Mounted after every API route, so it
 * only sees what nothing else answers; `/v1/…` stays the API's 404.
 */
export const dashboard = new Hono<AppEnv>();

dashboard.get('*', (c) => {
  const path = c.req.path;
  if (path.startsWith('/v1/') || !/^\/[A-Za-z0-9._/-]*$/.test(path) || path.includes('..'))
    return c.notFound();
  return serveStatic(c, `/dashboard${path === '/' ? '/index.html' : path}`);
});
