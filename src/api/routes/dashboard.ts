import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { staticFile } from './static-files';

/**
 * The dashboard (public/, its modules bundled into /js/dashboard.js by
 * tools/build-client.mjs): `/` and every file under it, forwarded to the
 * static assets (see `serveStatic`). The app's not-found handler asks it
 * last, so it only sees what no route answers (also routes added later) and
 * `/v1/…` stays the API's 404. Null: not a dashboard file.
 */
export async function dashboardFile(c: Context<AppEnv>): Promise<Response | null> {
  const path = c.req.path;
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return null;
  if (path.startsWith('/v1/') || !/^\/[A-Za-z0-9._/-]*$/.test(path) || path.includes('..'))
    return null;
  return staticFile(c, `/dashboard${path === '/' ? '/index.html' : path}`);
}
