import { WorkerEntrypoint } from 'cloudflare:workers';
import {
  type McpBackend,
  type McpCall,
  type McpHttpRequest,
  type McpHttpResponse,
  plainResponse,
} from './contract';
import { serve } from './handler';

/**
 * The MCP Worker (`mcp/wrangler.toml`): the MCP SDK, the tools and their
 * schemas, in an isolate of their own. It has no bindings and no public
 * route: the API Worker calls `serve` over its `MCP` service binding for each
 * `/mcp` request (src/api/mcp/gateway.ts), passing the backend it reaches
 * everything stateful through.
 */
export default class McpWorker extends WorkerEntrypoint {
  override async fetch(): Promise<Response> {
    return Response.json(
      {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'the MCP Worker answers only its API Worker: use /mcp on the API Worker',
      },
      { status: 404, headers: { 'Content-Type': 'application/problem+json' } },
    );
  }

  /** One `/mcp` request; the answer is read to its end (see `serve` in ./handler.ts). */
  async serve(
    request: McpHttpRequest,
    call: McpCall,
    backend: McpBackend,
  ): Promise<McpHttpResponse> {
    const { method, url, headers, body } = request;
    return plainResponse(await serve(new Request(url, { method, headers, body }), call, backend));
  }
}
