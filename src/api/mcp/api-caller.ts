import type { Context, Hono } from 'hono';
import type { ApiAnswer, ToolProblem } from '../../kernel/mcp-tool';
import { SIGNATURES_HEADER } from '../../protocol';
import type { AppEnv } from '../app-env';

/**
 * A tool's way into the app: each call re-enters the Hono app as a request
 * of its own, with the caller's Authorization header, so it meets the same
 * authentication, rights, validation and append path as a REST client. The
 * signatures offered for Wires the server builds go with each call too:
 * the tool call's (`_meta`, `SIGNATURES_META`), else the `/mcp` request's
 * `Wirestream-Signatures` header (what `wirestream mcp` sends for a keyed agent).
 */
export function apiCaller(app: Hono<AppEnv>, c: Context<AppEnv>) {
  const origin = new URL(c.req.url).origin;
  const authorization = c.req.header('Authorization') ?? '';
  const fromRequest = c.req.header(SIGNATURES_HEADER);
  return async (
    method: string,
    path: string,
    body?: unknown,
    signatures = fromRequest,
  ): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { Authorization: authorization };
    if (signatures !== undefined) headers[SIGNATURES_HEADER] = signatures;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const request = new Request(`${origin}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const res = await app.fetch(request, c.env, c.executionCtx);
    const type = res.headers.get('Content-Type') ?? '';
    const parsed: Record<string, unknown> = type.includes('json')
      ? ((await res.json()) as Record<string, unknown>)
      : { text: await res.text(), content_type: type };
    if (res.ok) return { ok: true, status: res.status, body: parsed };
    const problem = { status: res.status, type: 'about:blank', ...parsed } as ToolProblem;
    return { ok: false, status: res.status, problem };
  };
}
