/** The MCP Worker's bundle: .local/mcp/worker.js. */
export const MCP_WORKER_SCRIPT: string;
/** Bundles the MCP Worker as a deploy does; returns MCP_WORKER_SCRIPT. */
export function buildMcpWorker(): string;
