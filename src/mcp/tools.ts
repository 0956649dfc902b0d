import { defineToolset, toolsOf } from '../kernel/mcp-tool';
import { MCP_TOOLSETS } from '../modules/mcp';
import { SHELL_TOOLS } from './shell-tools';

/** Every tool `/mcp` lists: the shell's own, then the modules'. */
export const TOOLS = toolsOf([defineToolset('mcp', SHELL_TOOLS), ...MCP_TOOLSETS]);
