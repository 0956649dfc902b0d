import type { ApiAnswer } from '../kernel/mcp-tool';

/**
 * What the API Worker and the MCP Worker say to each other (types and one
 * conversion, no dependency: the API Worker imports nothing else from
 * src/mcp/, so the MCP SDK and the tools' schemas stay out of its isolate).
 *
 * The API Worker authenticates `/mcp` and calls the MCP Worker's `serve` over
 * its `MCP` service binding (Workers RPC) with the request, this `McpCall`
 * and an `McpBackend`: an RPC target living in the API Worker through which
 * the MCP Worker reaches everything stateful. The MCP Worker has no bindings.
 */

/** An MCP session of the 2025 era: who opened it and as which client. */
export interface McpSession {
  sub: string;
  client: string | null;
  protocol_version: string;
  opened_at: string;
}

export interface McpSettings {
  /** Host names answered besides localhost (`MCP_ALLOWED_HOSTS`). */
  allowedHosts: string[];
  /** Browser origins allowed besides localhost's (`CORS_ORIGINS`). */
  corsOrigins: string[];
  /** Idle time after which a 2025-era session expires (`MCP_SESSION_IDLE_SECONDS`). */
  sessionIdleMs: number;
}

/**
 * An HTTP message as plain data: what crosses between the two Workers is
 * copied whole (no body stream, nothing for either side to dispose).
 */
export interface McpHttpRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | null;
}

export interface McpHttpResponse {
  status: number;
  headers: [string, string][];
  body: string | null;
}

/** An answer copied whole, as it crosses between the Workers. */
export async function plainResponse(res: Response): Promise<McpHttpResponse> {
  return {
    status: res.status,
    headers: [...res.headers],
    body: res.body === null ? null : await res.text(),
  };
}

/**
 * One `/mcp` request as the API Worker hands it over: the bearer token's
 * subject and scopes, or the API's own 401/403 problem when authentication
 * refused the request (answered after the DNS-rebinding checks, which come
 * before anything else).
 */
export type McpCall = { settings: McpSettings } & (
  | { principal: { sub: string; scopes: string[] }; refusal: null }
  | { principal: null; refusal: McpHttpResponse }
);

/** The API Worker's side of one `/mcp` request (valid until `serve` returns). */
export interface McpBackend {
  /**
   * One REST call as the caller (its bearer token, the same checks and append path);
   * `signatures`: what the tool call offers for the Wires the server builds
   * (`Wirestream-Signatures`, JSON), from its `_meta` (`SIGNATURES_META`).
   */
  api(method: string, path: string, body?: unknown, signatures?: string): Promise<ApiAnswer>;
  /** Opens session `id` at `nowMs` for `session.sub`. */
  openSession(id: string, session: McpSession, nowMs: number, idleMs: number): Promise<void>;
  /** Session `id` if `sub` opened it and it is live at `nowMs` (restarting its idle count). */
  session(id: string, sub: string, nowMs: number): Promise<McpSession | null>;
  /** Ends session `id`; false when `sub` had no live session of that id. */
  endSession(id: string, sub: string, nowMs: number): Promise<boolean>;
  /** Registers (or touches) a HAID in the registry that `GET /v1/haids` lists. */
  registerHaid(haid: string, root: string, client: string | null, at: string): Promise<void>;
}

/**
 * The `_meta` key under which a tool call offers signatures for the Wires the
 * server builds from it (a keyed agent's): `[{wire_id, ts, sig}]`, as the
 * `Wirestream-Signatures` header carries them over REST.
 */
export const SIGNATURES_META = 'io.wirestream/signatures';
