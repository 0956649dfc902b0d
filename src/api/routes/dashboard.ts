import { type Handler, Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { DASHBOARD_FILES } from '../dashboard-files.gen';

/**
 * The dashboard (public/), served by the Worker from a module that
 * tools/build-client.mjs generates. Not Workers Static Assets: under
 * Miniflare those put an RPC proxy and the asset router — two more Workers in
 * the same thread — in front of every API request and every WebSocket frame,
 * which cost more than a third of each append's CPU (BENCHMARKS.md). The
 * files are small and revalidated by ETag, so a browser mostly gets 304s.
 */
export const dashboard = new Hono<AppEnv>();

for (const [path, file] of Object.entries(DASHBOARD_FILES)) {
  const serve: Handler<AppEnv> = (c) => {
    const headers = { ETag: file.etag, 'Cache-Control': 'no-cache' };
    if (c.req.header('If-None-Match') === file.etag) return c.body(null, 304, headers);
    return c.body(file.body, 200, { ...headers, 'Content-Type': file.type });
  };
  dashboard.get(path, serve);
  if (path === '/index.html') dashboard.get('/', serve);
}
