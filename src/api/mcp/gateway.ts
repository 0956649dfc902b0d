import { RpcTarget } from 'cloudflare:workers';
import { type Context, Hono } from 'hono';
import type { Env } from '../../env';
import type { ApiAnswer } from '../../kernel/mcp-tool';
import {
  type McpBackend,
  type McpCall,
  type McpSession,
  type McpSettings,
  plainResponse,
} from '../../mcp/contract';
import type { AppEnv } from '../app-env';
import { authenticate } from '../auth';
import { apiCaller } from './api-caller';
import { haidRegistry, sessionIdleMs, sessionObject } from './identity-object';

/**
 * `/mcp` is served by the MCP Worker (src/mcp/, `mcp/wrangler.toml`), which
 * holds the MCP SDK and the tools' schemas, so this Worker's isolate does not:
 * fewer live objects here means shorter GC pauses on the append and fan-out
 * path (BENCHMARKS.md). This route authenticates the request as any API route
 * does, then hands it over through the `MCP` service binding (Workers RPC)
 * with a backend for everything stateful: the tools' REST calls (re-entering
 * this app in-process, as before), the sessions and the HAID registry.
 */
export function mcpRoutes(app: Hono<AppEnv>): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const check = authenticate();
  routes.all('/mcp', async (c) => {
    let passed = false;
    const refused = await check(c, async () => {
      passed = true;
    });
    const settings = settingsOf(c.env);
    const who = passed ? c.get('principal') : null;
    const call: McpCall = who
      ? { principal: { sub: who.sub, scopes: [...who.scopes] }, refusal: null, settings }
      : { principal: null, refusal: await plainResponse(refused ?? c.res), settings };
    const raw = c.req.raw;
    const request = {
      method: raw.method,
      url: raw.url,
      headers: [...raw.headers],
      body: raw.method === 'GET' || raw.method === 'HEAD' ? null : await raw.text(),
    };
    const answer = await c.env.MCP.serve(request, call, new Backend(app, c));
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return routes;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function settingsOf(env: Env): McpSettings {
  return {
    allowedHosts: list(env.MCP_ALLOWED_HOSTS),
    corsOrigins: list(env.CORS_ORIGINS),
    sessionIdleMs: sessionIdleMs(env),
  };
}

/** The API Worker's side of one `/mcp` request (see `McpBackend`). */
class Backend extends RpcTarget implements McpBackend {
  readonly #env: Env;
  readonly #api: (
    method: string,
    path: string,
    body?: unknown,
    signatures?: string,
  ) => Promise<ApiAnswer>;

  constructor(app: Hono<AppEnv>, c: Context<AppEnv>) {
    super();
    this.#env = c.env;
    this.#api = apiCaller(app, c);
  }

  api(method: string, path: string, body?: unknown, signatures?: string): Promise<ApiAnswer> {
    return this.#api(method, path, body, signatures);
  }

  // Each method awaits its Durable Object call and returns plain data. An
  // object an RPC call returned carries a disposer (workerd adds one), so
  // handed back as is it reaches the MCP Worker as a result that must be
  // disposed, and workerd warns when it is not: `session` returns a copy.
  async openSession(id: string, session: McpSession, nowMs: number, idleMs: number) {
    await sessionObject(this.#env, id).open(session, nowMs, idleMs);
  }

  async session(id: string, sub: string, nowMs: number): Promise<McpSession | null> {
    const session = await sessionObject(this.#env, id).session(sub, nowMs);
    return session === null ? null : { ...session };
  }

  async endSession(id: string, sub: string, nowMs: number): Promise<boolean> {
    return await sessionObject(this.#env, id).end(sub, nowMs);
  }

  async registerHaid(haid: string, root: string, client: string | null, at: string) {
    await haidRegistry(this.#env).register(haid, root, client, at);
  }
}
