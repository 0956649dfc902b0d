import type * as z from 'zod';

/**
 * The MCP seam: a module lists the tools it offers agents over MCP (`/mcp`,
 * `wirestream mcp`) in its `mcp.ts`, as a toolset that `src/modules/mcp.ts`
 * names. Toolsets are not part of the module definition: only the MCP Worker
 * (src/mcp/) loads them, so the API Worker's isolate holds neither the MCP SDK
 * nor the tools' schemas. A tool names no transport: its handler receives the
 * attributed identity and a way to call the app's own REST routes with the
 * caller's bearer token, so MCP and REST share one validation and append path
 * and a refusal over MCP is the same problem a REST client would get.
 */

/** A problem+json answer of the app (RFC 9457), as a tool sees it. */
export interface ToolProblem {
  status: number;
  type: string;
  title?: string;
  detail?: string;
  [member: string]: unknown;
}

/** What one REST call answered: the JSON body on 2xx, the problem otherwise. */
export type ApiAnswer =
  | { ok: true; status: number; body: Record<string, unknown> }
  | { ok: false; status: number; problem: ToolProblem };

export interface McpToolContext {
  /** The attributed HAID: `{root}/{client}`, or the token's subject when no client is known. */
  haid: string;
  /** The token's subject (the HAID's root). */
  root: string;
  /** The client's name (`clientInfo.name`, or `client_identity`), if any. */
  client: string | null;
  /**
   * When the tool dates what it builds (ms since the epoch): the `ts` of the
   * first signature the call offers, else the clock. A keyed agent signs a
   * Wire by calling the tool again, which builds it again: a member counted
   * from the clock (an expiry time) would differ from the one it signed.
   */
  now: number;
  /** Calls one of the app's routes as the caller (same token, same checks). */
  api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<ApiAnswer>;
}

/** A tool's answer: a JSON result, or a refusal that names the argument at fault. */
export type ToolOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; argument: string | null; problem: ToolProblem };

export interface McpTool<Input extends z.ZodObject = z.ZodObject> {
  /** Unique across modules (the registry refuses duplicates). */
  name: string;
  description: string;
  /** Arguments; the shell adds `client_identity` to every tool. */
  input: Input;
  /** The result's shape (`outputSchema`); the shell adds `haid`. */
  output: z.ZodObject;
  handler(args: z.infer<Input>, ctx: McpToolContext): Promise<ToolOutcome>;
}

/** One module's tools. */
export interface McpToolset {
  module: string;
  tools: readonly McpTool[];
}

export function defineToolset(module: string, tools: readonly McpTool[]): McpToolset {
  return { module, tools };
}

/** Every toolset's tools in order; a name declared twice is a bug, reported when the MCP Worker loads. */
export function toolsOf(toolsets: readonly McpToolset[]): McpTool[] {
  const byName = new Map<string, string>();
  for (const set of toolsets) {
    for (const tool of set.tools) {
      const first = byName.get(tool.name);
      if (first !== undefined) {
        throw new Error(
          `MCP tool "${tool.name}" is declared twice (by ${first}, again by ${set.module})`,
        );
      }
      byName.set(tool.name, set.module);
    }
  }
  return toolsets.flatMap((set) => set.tools);
}

/** Declares a tool with its argument types inferred from `input`. */
export function defineTool<Input extends z.ZodObject>(tool: McpTool<Input>): McpTool {
  return tool as unknown as McpTool;
}

export function toolResult(result: Record<string, unknown>): ToolOutcome {
  return { ok: true, result };
}

/** A refused REST call as a tool refusal; `argument` is the tool argument it concerns. */
export function toolRefusal(
  answer: { problem: ToolProblem },
  argument: string | null = null,
): ToolOutcome {
  return { ok: false, argument, problem: answer.problem };
}

/**
 * A REST answer as the tool's outcome: its body, or a refusal about
 * `argument` — named, or worked out from the problem.
 */
export function outcomeOf(
  res: ApiAnswer,
  argument: string | null | ((problem: ToolProblem) => string | null) = null,
): ToolOutcome {
  if (res.ok) return toolResult(res.body);
  return toolRefusal(res, typeof argument === 'function' ? argument(res.problem) : argument);
}

/** The `path` of a REST problem's first field error, or null when it names none. */
export function firstErrorPath(problem: ToolProblem): string | null {
  const errors = Array.isArray(problem.errors) ? (problem.errors as { path?: unknown }[]) : [];
  const path = errors[0]?.path;
  return typeof path === 'string' ? path : null;
}

/**
 * The tool argument a REST problem is about: the first segment of the first
 * `errors[].path` (or `pointer`) that names one of `args` (or the key an
 * "Unrecognized key" error names), else the field a detail starts with
 * (`symbols: no symbol "X"`), else `fallback`.
 */
export function argumentOf(
  problem: ToolProblem,
  args: readonly string[],
  fallback: string | null,
): string | null {
  const errors = Array.isArray(problem.errors) ? (problem.errors as Record<string, unknown>[]) : [];
  for (const e of errors) {
    const raw = e.path ?? e.pointer ?? e.field;
    const path = Array.isArray(raw) ? raw.join('.') : typeof raw === 'string' ? raw : '';
    const first = path.replace(/^\//, '').split(/[./[]/)[0] ?? '';
    if (args.includes(first)) return first;
    // zod's unrecognized_keys issue sits at the object (the body: "(body)"), not
    // at the key: its message names the keys.
    const unrecognized = /^Unrecognized keys?: (.*)$/.exec(String(e.message ?? ''))?.[1];
    const key = [...(unrecognized ?? '').matchAll(/"([^"]+)"/g)]
      .map((m) => m[1] ?? '')
      .find((k) => args.includes(k));
    if (key) return key;
  }
  const lead = /^([A-Za-z_]\w*):/.exec(String(problem.detail ?? ''))?.[1];
  return lead && args.includes(lead) ? lead : fallback;
}

/**
 * A refusal before any REST call: an argument the chosen action needs is
 * missing (one tool serving several actions cannot say so in its schema).
 */
export function argumentMissing(argument: string, detail: string): ToolOutcome {
  return {
    ok: false,
    argument,
    problem: {
      status: 422,
      type: '/problems/invalid-body',
      title: 'The request body is not valid',
      detail,
      errors: [{ path: argument, message: detail }],
    },
  };
}

/** The first of `names` that `args` lacks (undefined, `''` or `[]`), if any. */
export function firstMissing(
  args: Record<string, unknown>,
  names: readonly string[],
): string | undefined {
  const empty = (v: unknown) => v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
  return names.find((n) => empty(args[n]));
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
