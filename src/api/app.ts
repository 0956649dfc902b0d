import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import { REGISTRY } from '../modules';
import { fail } from '../protocol';
import type { AppEnv } from './app-env';
import { authenticate, authRoutes } from './auth';
import { corsForApi, securityHeaders } from './browser-hygiene';
import { documentedQuery } from './documented-query';
import { httpExceptionProblem } from './http-exception';
import { mcpRoutes } from './mcp/gateway';
import { haids } from './mcp/haids';
import { problem, problemMeta } from './problem';
import { adminPrivate } from './routes/admin-private';
import { adminRebuild } from './routes/admin-rebuild';
import { anchoring } from './routes/anchoring';
import { dashboardFile } from './routes/dashboard';
import { readStreams } from './routes/read-streams';
import { readWires } from './routes/read-wires';
import { reference } from './routes/reference';
import { serveStatic } from './routes/static-files';
import { streams } from './routes/streams';
import { topicLog } from './routes/topic-log';

/**
 * hono's own getPath, remembered for the last URL: appends repeat one URL, and
 * a stream id's percent-encoded `:` sends hono's version through a decode on
 * every request.
 */
let last = { url: '', path: '' };
function cachedPath(request: Request): string {
  const url = request.url;
  if (url !== last.url) last = { url, path: getPath(request) };
  return last.path;
}

/** The HTTP API. One `app.use('/v1/*', …)` can guard every route. */
export function createApp() {
  const app = new Hono<AppEnv>({ getPath: cachedPath });

  // Before every route: headers and CORS first (preflights need no token), then
  // authentication for all of /v1 but the public schemas.
  app.use('*', securityHeaders);
  app.use('/v1/*', corsForApi);
  app.use('/v1/*', authenticate());
  // Unknown or repeated query parameters on any documented operation: a 400.
  app.use('*', documentedQuery);

  // Built at build time (src/modules/schemas.ts): a static asset.
  app.get('/v1/schema/wire.json', (c) =>
    serveStatic(c, '/reference/schema/wire.json', { 'Content-Type': 'application/schema+json' }),
  );

  app.route('/', reference);
  app.route('/v1/streams', streams);
  app.route('/v1', authRoutes);
  app.route('/v1', anchoring);
  app.route('/v1', topicLog);
  // Each protocol module's own routes (src/modules/index.ts lists the modules).
  for (const module of REGISTRY.modules) if (module.routes) app.route('/v1', module.routes);
  app.route('/v1', readStreams);
  app.route('/v1', readWires);
  app.route('/v1', adminRebuild);
  app.route('/v1', adminPrivate);
  // MCP: `/mcp` (Streamable HTTP) re-enters this app for each tool; the HAID registry.
  app.route('/v1', haids);
  app.route('/', mcpRoutes(app));

  app.get('/problems/:code', (c) => {
    const code = c.req.param('code');
    const meta = problemMeta(code);
    if (!meta) return problem(c, fail('not-found', `no problem type "${code}"`));
    return c.json({ type: `/problems/${code}`, ...meta });
  });

  // Last: a dashboard file, else the API's 404.
  app.notFound(
    async (c) =>
      (await dashboardFile(c)) ??
      problem(c, fail('not-found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`)),
  );

  app.onError((error, c) => {
    // hono's middleware throws HTTPException for the client's mistakes (4xx).
    const refused = httpExceptionProblem(error, c);
    if (refused) return refused;
    // Bugs only: expected failures are values. Never leak a stack trace.
    console.error('unhandled error', error);
    return problem(c, { code: 'internal' as never, detail: 'an internal error occurred' });
  });

  return app;
}
