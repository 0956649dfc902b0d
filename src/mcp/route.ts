import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../api/app-env';
import { authenticate } from '../api/auth';
import type { Env } from '../env';
import { REGISTRY } from '../modules';
import { apiCaller } from './api-caller';
import { clientSlug } from './identity';
import { sessionIdleMs, sessionObject } from './identity-object';
import { rebindingRefusal } from './rebinding';
import { buildServer, type CallScope } from './server';
import { SHELL_TOOLS } from './shell-tools';

const SESSION = 'Mcp-Session-Id';
const TOOLS = [...SHELL_TOOLS, ...REGISTRY.mcpTools];

/**
 * One handler serves every era: 2026-07-28 requests (client info in each
 * request's `_meta`) and, through the SDK's stateless legacy leg, 2024-11-05
 * to 2025-11-25. The server is built per request from the scope `authInfo`
 * carries (see ./server.ts).
 */
const handler = createMcpHandler(
  (ctx) => {
    const scope = (ctx.authInfo?.extra as { scope?: CallScope } | undefined)?.scope;
    if (!scope) throw new Error('an MCP request reached the handler without its scope');
    return buildServer(TOOLS, scope);
  },
  { legacy: 'stateless' },
);

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * An unknown, ended, expired or foreign session: 404, so the client starts a
 * new one with `initialize` (transport spec, "Session Management").
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
function sessionNotFound(env: Env): Response {
  const idle = sessionIdleMs(env) / 1000;
  return rpcError(
    404,
    -32001,
    `Session not found (sessions end on DELETE or after ${idle} s idle): initialize again`,
  );
}

interface InitializeMessage {
  jsonrpc: '2.0';
  id: string | number;
  method: 'initialize';
  params?: {
    protocolVersion?: string;
    capabilities?: Record<string, unknown>;
    clientInfo?: { name?: string; version?: string };
  };
}

async function initializeOf(request: Request): Promise<InitializeMessage | null> {
  try {
    const body = (await request.clone().json()) as InitializeMessage;
    return body && !Array.isArray(body) && body.method === 'initialize' ? body : null;
  } catch {
    return null;
  }
}

/**
 * The seed's handshake omits what the SDK requires (`protocolVersion`,
 * `capabilities`, `clientInfo.version`): fill those in with the seed's
 * revision and empty values, so its examples work as written.
 */
function completeInitialize(message: InitializeMessage, request: Request): Request {
  const params = message.params ?? {};
  const body: InitializeMessage = {
    ...message,
    params: {
      ...params,
      protocolVersion: params.protocolVersion ?? '2024-11-05',
      capabilities: params.capabilities ?? {},
      clientInfo: {
        version: '0',
        ...params.clientInfo,
        name: params.clientInfo?.name ?? 'unknown',
      },
    },
  };
  return new Request(request.url, {
    method: 'POST',
    headers: request.headers,
    body: JSON.stringify(body),
  });
}

/** `/mcp`: Host/Origin checks, the API's bearer tokens, then the MCP handler. */
export function mcpRoutes(app: Hono<AppEnv>): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('/mcp', async (c, next) => rebindingRefusal(c.req.raw, c.env) ?? next());
  routes.use('/mcp', authenticate());
  routes.all('/mcp', (c) => serve(app, c));
  return routes;
}

async function serve(app: Hono<AppEnv>, c: Context<AppEnv>): Promise<Response> {
  const request = c.req.raw;
  const sub = c.get('principal').sub;
  const sessionId = request.headers.get(SESSION);
  const scope: CallScope = { env: c.env, sub, sessionClient: null, api: apiCaller(app, c) };
  const authInfo = () => ({
    token: '',
    clientId: sub,
    scopes: c.get('principal').scopes,
    extra: { scope },
  });

  if (request.method === 'GET') {
    // No server-initiated stream: tools answer in their response.
    return new Response(null, { status: 405, headers: { Allow: 'POST, DELETE' } });
  }
  if (request.method === 'DELETE') {
    if (!sessionId) return rpcError(400, -32000, `Bad Request: ${SESSION} header is required`);
    const ended = await sessionObject(c.env, sessionId).end(sub, Date.now());
    return ended ? new Response(null, { status: 204 }) : sessionNotFound(c.env);
  }
  if (request.method !== 'POST' || !(await isLegacyRequest(request))) {
    return handler.fetch(request, { authInfo: authInfo() });
  }

  // 2025 era: the client declares itself once, at initialize; the session
  // keeps that declaration for every later request, on any isolate.
  const initialize = await initializeOf(request);
  if (initialize) {
    const id = crypto.randomUUID();
    const completed = completeInitialize(initialize, request);
    const params = (await completed.clone().json()) as InitializeMessage;
    const now = Date.now();
    await sessionObject(c.env, id).open(
      {
        sub,
        client: clientSlug(params.params?.clientInfo?.name),
        protocol_version: String(params.params?.protocolVersion),
        opened_at: new Date(now).toISOString(),
      },
      now,
      sessionIdleMs(c.env),
    );
    const res = await handler.fetch(completed, { authInfo: authInfo() });
    const headers = new Headers(res.headers);
    headers.set(SESSION, id);
    return new Response(res.body, { status: res.status, headers });
  }
  if (!sessionId) {
    return rpcError(400, -32000, `Bad Request: ${SESSION} header is required after initialize`);
  }
  const session = await sessionObject(c.env, sessionId).session(sub, Date.now());
  if (!session) return sessionNotFound(c.env);
  scope.sessionClient = session.client;
  return handler.fetch(request, { authInfo: authInfo() });
}
