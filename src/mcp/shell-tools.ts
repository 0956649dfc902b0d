import * as z from 'zod';
import { defineTool, outcomeOf } from '../kernel/mcp-tool';

/** Tools of the MCP shell itself, beside the modules' (identity is the shell's). */
export const SHELL_TOOLS = [
  defineTool({
    name: 'list_haids',
    description: 'The HAID registry: every identity ({root}/{client}) that acted, with its role.',
    input: z.object({}),
    output: z.object({ haids: z.array(z.looseObject({ haid: z.string() })), count: z.number() }),
    async handler(_args, ctx) {
      const res = await ctx.api('GET', '/v1/haids');
      return outcomeOf(res);
    },
  }),
];
