// Bundles the MCP Worker (tools/build-mcp.mjs) before the workers tests start:
// vitest.config.ts runs .local/mcp/worker.js beside the Worker under test, which
// reaches it through its MCP service binding for every /mcp request.
import { buildMcpWorker } from '../tools/build-mcp.mjs';

export default function setup() {
  buildMcpWorker();
}
