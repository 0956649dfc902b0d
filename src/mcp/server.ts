import { McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ApiAnswer, McpTool, McpToolContext, ToolOutcome } from '../kernel/mcp-tool';
import { type McpBackend, SIGNATURES_META } from './contract';
import { ClientIdentity, clientSlug, haidOf, registerHaid } from './identity';

/** `serverInfo.version`: the tool contract's semver (seed 001, "MCP Interop Contract"). */
export const TOOL_CONTRACT_VERSION = '1.0.0';

/** What the HTTP shell knows of one request, handed to the server it builds for it. */
export interface CallScope {
  /** The API Worker's side of this request: REST calls, sessions, the HAID registry. */
  backend: McpBackend;
  /** The token's subject: every HAID's root. */
  sub: string;
  /** The client the 2025-era session declared at initialize. */
  sessionClient: string | null;
  /** The `/mcp` request's `Wirestream-Signatures` header (what `wirestream mcp` offers), if any. */
  signatures?: string | undefined;
}

/**
 * `McpToolContext.now`: the `ts` of the first signature offered (the call's
 * `_meta`, else the request's header), so that a tool called again to sign
 * what it built dates it as before; else the clock. A malformed offer dates
 * nothing (the append path refuses it, naming the offer).
 */
function datedAt(offered: unknown, header: string | undefined): number {
  let offers = offered;
  if (offers === undefined && header !== undefined) {
    try {
      offers = JSON.parse(header);
    } catch {
      offers = undefined;
    }
  }
  const first = Array.isArray(offers) ? (offers[0] as { ts?: unknown } | null) : null;
  const at = typeof first?.ts === 'string' ? Date.parse(first.ts) : Number.NaN;
  return Number.isFinite(at) ? at : Date.now();
}

const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

function clientOf(args: Record<string, unknown>, scope: CallScope, ctx: ServerContext) {
  if (typeof args.client_identity === 'string') return args.client_identity;
  const envelope = ctx.mcpReq.envelope as Record<string, { name?: string } | undefined> | undefined;
  const modern = envelope?.[CLIENT_INFO];
  return clientSlug(modern?.name) ?? scope.sessionClient;
}

/** A JSON text block plus its `structuredContent` mirror, so text-only and structured clients both work. */
function answer(outcome: ToolOutcome, haid: string) {
  if (outcome.ok) {
    const result = { ...outcome.result, haid };
    return {
      content: [{ type: 'text' as const, text: JSON.stringify(result) }],
      structuredContent: result,
    };
  }
  const { argument, problem } = outcome;
  const error = { argument, ...problem };
  // A keyed agent's Wire the server built: how to sign it over MCP.
  const sign =
    problem.unsigned === undefined
      ? ''
      : ` (over MCP: sign \`problem.unsigned\` and call again with _meta["${SIGNATURES_META}"]: [{wire_id, ts, sig}]; \`wirestream mcp\` with WIRESTREAM_KEY does)`;
  const why = `${argument ? `argument "${argument}": ` : ''}${problem.detail ?? problem.title ?? problem.type}${sign}`;
  return {
    content: [
      { type: 'text' as const, text: JSON.stringify({ error: why, problem: error, haid }) },
    ],
    isError: true,
  };
}

/** Every tool with the shell's additions: `client_identity` in, `haid` out. */
function register(server: McpServer, tool: McpTool, scope: CallScope) {
  const input = tool.input.extend({ client_identity: ClientIdentity.optional() });
  const output = tool.output.extend({
    haid: z.string().meta({ description: 'The attributed HAID' }),
  });
  server.registerTool(
    tool.name,
    { description: tool.description, inputSchema: input, outputSchema: output },
    async (args: Record<string, unknown>, ctx: ServerContext) => {
      const client = clientOf(args, scope, ctx);
      const haid = haidOf(scope.sub, client);
      await registerHaid(scope.backend, scope.sub, client);
      const { client_identity: _c, ...rest } = args;
      const offered = ctx.mcpReq._meta?.[SIGNATURES_META];
      const signatures = offered === undefined ? undefined : JSON.stringify(offered);
      const api: McpToolContext['api'] = (method, path, body) =>
        scope.backend.api(method, path, body, signatures);
      const now = datedAt(offered, scope.signatures);
      const outcome = await tool.handler(rest, { haid, root: scope.sub, client, now, api });
      return answer(outcome, haid);
    },
  );
}

/** A fresh server for one request (createMcpHandler asks for one each time). */
export function buildServer(tools: readonly McpTool[], scope: CallScope): McpServer {
  const server = new McpServer(
    { name: 'wirestream', version: TOOL_CONTRACT_VERSION },
    // logging: a host may set a level (logging/setLevel); the tools send no log messages.
    { capabilities: { tools: { listChanged: false }, logging: {} } },
  );
  for (const tool of tools) register(server, tool, scope);
  return server;
}

export type { ApiAnswer };
