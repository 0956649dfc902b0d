import * as z from 'zod';
import {
  argumentOf,
  type McpToolContext,
  outcomeOf,
  type ToolOutcome,
} from '../../kernel/mcp-tool';

/** What the heimdall tools share: the `workspace` argument and one REST call per tool call. */

export const enc = encodeURIComponent;

export const WorkspaceId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a workspace id: [a-z0-9][a-z0-9._-]{0,63}');

export const Workspace = WorkspaceId.default('default').meta({
  description: 'Workspace id (default `default`)',
});

export const ws = (workspace: string, rest: string) => `/v1/workspaces/${enc(workspace)}${rest}`;

/**
 * One REST call as the caller: its JSON body as the result, or its problem as
 * a refusal naming the tool argument among `args` it concerns (else `fallback`).
 */
export async function run(
  ctx: McpToolContext,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body: unknown,
  args: readonly string[],
  fallback: string | null,
): Promise<ToolOutcome> {
  const res = await ctx.api(method, path, body);
  return outcomeOf(res, (p) => argumentOf(p, args, fallback));
}

/**
 * `POST` tool arguments to `rest` under the workspace, as the caller (its
 * `haid` added); a refusal names the argument at fault among `names` (by
 * default the ones sent), else `fallback`.
 */
export function postAs(
  ctx: McpToolContext,
  workspace: string,
  rest: string,
  fields: Record<string, unknown>,
  fallback: string,
  names: readonly string[] = Object.keys(fields),
): Promise<ToolOutcome> {
  return run(ctx, 'POST', ws(workspace, rest), { ...fields, haid: ctx.haid }, names, fallback);
}

/** One tool, several actions: the kernel's dispatch (its needs checked by name). */
export { dispatch } from '../../kernel/mcp-tool';
