import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { McpSettings } from './contract';

/**
 * DNS-rebinding protection for `/mcp` (the Streamable HTTP transport asks
 * servers to validate Origin; `createMcpHandler` checks neither header):
 * Host must be localhost or one of `MCP_ALLOWED_HOSTS`; a browser's Origin
 * must be one of those or of `CORS_ORIGINS`. Non-browser clients send no
 * Origin and pass that check.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 */
export function rebindingRefusal(request: Request, settings: McpSettings): Response | undefined {
  const extra = settings.allowedHosts;
  const origins = settings.corsOrigins.flatMap((o) => {
    try {
      return [new URL(o).hostname];
    } catch {
      return [];
    }
  });
  // A request built inside the runtime (tests, a service binding) may carry no
  // Host header: its URL's host is the one it addresses.
  const hosted = request.headers.has('host')
    ? request
    : new Request(request.url, { headers: { host: new URL(request.url).host } });
  return (
    hostHeaderValidationResponse(hosted, [...localhostAllowedHostnames(), ...extra]) ??
    originValidationResponse(request, [...localhostAllowedOrigins(), ...extra, ...origins])
  );
}
