import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { SIGNATURES_HEADER } from '../protocol/signature';
import type { McpBackend, McpCall } from './contract';
import { clientSlug } from './identity';
import { rebindingRefusal } from './rebinding';
import { buildServer, type CallScope } from './server';
import { TOOLS } from './tools';

const SESSION = 'Mcp-Session-Id';

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
function sessionNotFound(call: McpCall): Response {
  const idle = call.settings.sessionIdleMs / 1000;
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

/**
 * One `/mcp` request: Host/Origin checks first, then the API's own refusal
 * of an unauthenticated request, then the MCP handler. The caller reads the
 * answer to its end before the RPC call returns: tools run while it is
 * produced, and they reach the API Worker through `backend`, which lives only
 * as long as that call.
 */
export async function serve(
  request: Request,
  call: McpCall,
  backend: McpBackend,
): Promise<Response> {
  const refused = rebindingRefusal(request, call.settings);
  if (refused) return refused;
  if (call.principal === null) {
    const { refusal } = call;
    return new Response(refusal.body, { status: refusal.status, headers: refusal.headers });
  }
  return answer(request, call, call.principal, backend);
}

async function answer(
  request: Request,
  call: McpCall,
  principal: NonNullable<McpCall['principal']>,
  backend: McpBackend,
): Promise<Response> {
  const { sub } = principal;
  const sessionId = request.headers.get(SESSION);
  const signatures = request.headers.get(SIGNATURES_HEADER) ?? undefined;
  const scope: CallScope = { backend, sub, sessionClient: null, signatures };
  const authInfo = () => ({
    token: '',
    clientId: sub,
    scopes: principal.scopes,
    extra: { scope },
  });

  if (request.method === 'GET') {
    // No server-initiated stream: tools answer in their response.
    return new Response(null, { status: 405, headers: { Allow: 'POST, DELETE' } });
  }
  if (request.method === 'DELETE') {
    if (!sessionId) return rpcError(400, -32000, `Bad Request: ${SESSION} header is required`);
    const ended = await backend.endSession(sessionId, sub, Date.now());
    return ended ? new Response(null, { status: 204 }) : sessionNotFound(call);
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
    await backend.openSession(
      id,
      {
        sub,
        client: clientSlug(params.params?.clientInfo?.name),
        protocol_version: String(params.params?.protocolVersion),
        opened_at: new Date(now).toISOString(),
      },
      now,
      call.settings.sessionIdleMs,
    );
    const res = await handler.fetch(completed, { authInfo: authInfo() });
    const headers = new Headers(res.headers);
    headers.set(SESSION, id);
    return new Response(res.body, { status: res.status, headers });
  }
  if (!sessionId) {
    return rpcError(400, -32000, `Bad Request: ${SESSION} header is required after initialize`);
  }
  const session = await backend.session(sessionId, sub, Date.now());
  if (!session) return sessionNotFound(call);
  scope.sessionClient = session.client;
  return handler.fetch(request, { authInfo: authInfo() });
}
