import type { Context } from 'hono';
import type { AppEnv } from '../app-env';

/** Content types of the files the Worker forwards, as it served them itself before. */
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
};

/**
 * Answers with `asset` of the wirestream-static Worker (static/wrangler.toml):
 * the dashboard, the OpenAPI document and the /docs page are its static
 * assets, built by tools/build-client.mjs, so they are not strings in this
 * Worker's bundle (BENCHMARKS.md, "Bundle size"). Revalidation is the asset
 * server's (its ETag, `If-None-Match` → 304); every file is `no-cache`, as
 * before. A missing asset is the app's problem+json 404.
 *
 * Why a Worker of their own rather than `[assets]` on this one: with assets,
 * Miniflare (`wrangler dev`, the tests, the bench) runs an RPC proxy and the
 * asset router in front of every API request and WebSocket frame, which cost
 * more than a third of each append's CPU (BENCHMARKS.md). Bound as a service,
 * only these requests cross them.
 */
export async function serveStatic(
  c: Context<AppEnv>,
  asset: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return (await staticFile(c, asset, headers)) ?? c.notFound();
}

/** `asset` as `serveStatic` answers it, or null when the static Worker has no such file. */
export async function staticFile(
  c: Context<AppEnv>,
  asset: string,
  headers: Record<string, string> = {},
): Promise<Response | null> {
  const ifNoneMatch = c.req.header('If-None-Match');
  const res = await c.env.STATIC.fetch(
    new Request(new URL(asset, 'https://static.invalid'), {
      method: c.req.method === 'HEAD' ? 'HEAD' : 'GET',
      headers: ifNoneMatch ? { 'If-None-Match': ifNoneMatch } : {},
    }),
  );
  if (res.status !== 200 && res.status !== 304) {
    await res.body?.cancel();
    return null;
  }
  const out = new Headers({ 'Cache-Control': 'no-cache', ...headers });
  const etag = res.headers.get('ETag');
  if (etag) out.set('ETag', etag);
  if (res.status === 304) {
    await res.body?.cancel();
    return new Response(null, { status: 304, headers: out });
  }
  const type = TYPES[asset.slice(asset.lastIndexOf('.') + 1)] ?? res.headers.get('Content-Type');
  if (type && !out.has('Content-Type')) out.set('Content-Type', type);
  return new Response(res.body, { status: 200, headers: out });
}
