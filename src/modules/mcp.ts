import { defineToolset } from '../kernel/mcp-tool';
import { COORDINATION_TOOLS } from './coordination/mcp';
import { HEIMDALL_TOOLS } from './heimdall/mcp';
import { WORKSPACE_TOOLS } from './heimdall/mcp-workspace';
import { RUNTIME_TOOLS } from './runtime/mcp';
import { WRITER_TOOLS } from './writer/mcp';

/**
 * The MCP tools of this deployment's modules, one line per module that offers
 * any (`kernel/mcp-tool.ts`). Only the MCP Worker (src/mcp/) imports this.
 */
export const MCP_TOOLSETS = [
  defineToolset('coordination', COORDINATION_TOOLS),
  defineToolset('heimdall', [...HEIMDALL_TOOLS, ...WORKSPACE_TOOLS]),
  defineToolset('writer', WRITER_TOOLS),
  defineToolset('runtime', RUNTIME_TOOLS),
];
