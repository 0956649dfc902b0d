import * as z from 'zod';
import {
  argumentMissing,
  argumentOf,
  firstMissing,
  type McpToolContext,
  type ToolOutcome,
  toolRefusal,
  toolResult,
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
  if (res.ok) return toolResult(res.body);
  return toolRefusal(res, argumentOf(res.problem, args, fallback));
}

/**
 * Dispatches a tool with an `action` argument: refuses, naming it, the first
 * argument the action needs and lacks; else runs the action.
 */
export function dispatch<A extends string, T extends { action: A }>(
  args: T,
  needs: Record<A, readonly string[]>,
  actions: Record<A, () => Promise<ToolOutcome>>,
): Promise<ToolOutcome> {
  const missing = firstMissing(args as Record<string, unknown>, needs[args.action]);
  if (missing) {
    return Promise.resolve(
      argumentMissing(missing, `${missing} is required for action "${args.action}"`),
    );
  }
  return actions[args.action]();
}
