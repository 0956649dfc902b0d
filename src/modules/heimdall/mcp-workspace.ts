import * as z from 'zod';
import { defineTool, toolResult } from '../../kernel/mcp-tool';
import { dispatch, enc, postAs, run, Workspace, WorkspaceId, ws } from './mcp-shared';
import { Name, Role } from './workspace/payloads';

/**
 * The workspace mechanisms over MCP (issue 27: "an agent needs nothing but
 * MCP"), one tool per mechanism with an `action`, each action one call of
 * the REST route a client would make, attributed to the caller's HAID. One
 * tool per mechanism, not per action, because every tool's schema is paid
 * for in each host's context on `tools/list` (BENCHMARKS.md, "MCP token
 * economy"); the arguments an action needs are checked here and a missing
 * one is refused by name.
 */

const Id = Name.optional();
const Ids = z.array(z.string()).optional();
const Text = z.string().optional();
const Tokens = z.int().min(0).max(100_000_000).optional();
const Loose = z.looseObject({});
const by = (ctx: { haid: string }) => ({ haid: ctx.haid });

export const WORKSPACE_TOOLS = [
  defineTool({
    name: 'symbols',
    description:
      'Symbol table. set id+value (re-setting an id to another value needs force), get id, lookup value → id, list.',
    input: z.object({
      workspace: Workspace,
      action: z.enum(['set', 'get', 'lookup', 'list']),
      id: Id,
      value: Text,
      force: z.boolean().optional(),
    }),
    output: Loose,
    handler: (a, ctx) =>
      dispatch(
        a,
        { set: ['id', 'value'], get: ['id'], lookup: ['value'], list: [] },
        {
          set: () =>
            run(
              ctx,
              'PUT',
              ws(a.workspace, `/symbols/${enc(String(a.id))}`),
              { value: a.value, ...(a.force ? { force: true } : {}), ...by(ctx) },
              ['value', 'force'],
              'id',
            ),
          get: () =>
            run(ctx, 'GET', ws(a.workspace, `/symbols/${enc(String(a.id))}`), undefined, [], 'id'),
          lookup: () =>
            run(
              ctx,
              'GET',
              ws(a.workspace, `/symbols?reverse=${enc(String(a.value))}`),
              undefined,
              [],
              'value',
            ),
          list: () => run(ctx, 'GET', ws(a.workspace, '/symbols'), undefined, [], 'workspace'),
        },
      ),
  }),
  defineTool({
    name: 'capsules',
    description:
      'Context capsules (≤10 lines). write id+what [where decision gotcha depends]; hydrate ids → the depends closure, dependencies first, as markdown; deps ids → closure ids.',
    input: z.object({
      workspace: Workspace,
      action: z.enum(['write', 'hydrate', 'deps']),
      id: Id,
      ids: Ids,
      what: Text,
      where: Text,
      decision: Text,
      gotcha: Text,
      depends: Ids,
    }),
    output: Loose,
    handler: async (a, ctx) => {
      const closure = async () => {
        const path = ws(a.workspace, `/capsules/hydrate?ids=${enc((a.ids ?? []).join(','))}`);
        return run(ctx, 'GET', path, undefined, [], 'ids');
      };
      const capsulesOf = (r: { result: Record<string, unknown> }) =>
        (r.result.capsules as { id: string; markdown: string }[]) ?? [];
      return dispatch(
        a,
        { write: ['id', 'what'], hydrate: ['ids'], deps: ['ids'] },
        {
          write: () => {
            const { workspace, action: _a, id, ids: _i, ...fields } = a;
            return run(
              ctx,
              'PUT',
              ws(workspace, `/capsules/${enc(String(id))}`),
              { ...fields, ...by(ctx) },
              Object.keys(fields),
              'id',
            );
          },
          hydrate: async () => {
            const out = await closure();
            if (!out.ok) return out;
            const capsules = capsulesOf(out).map((c) => ({ id: c.id, markdown: c.markdown }));
            return toolResult({ capsules });
          },
          deps: async () => {
            const out = await closure();
            return out.ok ? toolResult({ ids: capsulesOf(out).map((c) => c.id) }) : out;
          },
        },
      );
    },
  }),
  defineTool({
    name: 'brief',
    description:
      'Build a delta brief: spec + only the named symbols + the named capsules’ closure + an invariants reference; its tokens go to the ledger (dry_run: count only).',
    input: z.object({
      workspace: Workspace,
      task: z.string(),
      spec: z.string(),
      symbols: Ids,
      capsules: Ids,
      invariants: Text,
      role: Text,
      tokens: Tokens,
      dry_run: z.boolean().optional(),
    }),
    output: z.looseObject({ tokens: z.number() }),
    handler: ({ workspace, ...body }, ctx) => postAs(ctx, workspace, '/briefs', body, 'task'),
  }),
  defineTool({
    name: 'blackboard',
    description: 'Shared facts. set key+value, get key (with its history), list.',
    input: z.object({
      workspace: Workspace,
      action: z.enum(['set', 'get', 'list']),
      key: Id,
      value: Text,
    }),
    output: Loose,
    handler: (a, ctx) =>
      dispatch(
        a,
        { set: ['key', 'value'], get: ['key'], list: [] },
        {
          set: () =>
            run(
              ctx,
              'PUT',
              ws(a.workspace, `/blackboard/${enc(String(a.key))}`),
              { value: a.value, ...by(ctx) },
              ['value'],
              'key',
            ),
          get: () =>
            run(
              ctx,
              'GET',
              ws(a.workspace, `/blackboard/${enc(String(a.key))}`),
              undefined,
              [],
              'key',
            ),
          list: () => run(ctx, 'GET', ws(a.workspace, '/blackboard'), undefined, [], 'workspace'),
        },
      ),
  }),
  defineTool({
    name: 'ledger',
    description:
      'Token ledger. log role+kind+tokens [msg_id]; baseline role+tokens (v1 to beat); delta role → measured line; report → per-role totals.',
    input: z.object({
      workspace: Workspace,
      action: z.enum(['log', 'baseline', 'delta', 'report']),
      role: Role.optional(),
      kind: Text,
      tokens: Tokens,
      msg_id: Text,
    }),
    output: Loose,
    handler: (a, ctx) => {
      const { workspace } = a;
      // Each action posts only the arguments its route takes (a baseline has no msg_id).
      const post = (what: 'log' | 'baseline', names: readonly (keyof typeof a)[]) =>
        postAs(
          ctx,
          workspace,
          `/ledger/${what}`,
          Object.fromEntries(names.filter((n) => a[n] !== undefined).map((n) => [n, a[n]])),
          'role',
        );
      return dispatch(
        a,
        {
          log: ['role', 'kind', 'tokens'],
          baseline: ['role', 'tokens'],
          delta: ['role'],
          report: [],
        },
        {
          log: () => post('log', ['role', 'kind', 'tokens', 'msg_id']),
          baseline: () => post('baseline', ['role', 'tokens']),
          delta: () =>
            run(
              ctx,
              'GET',
              ws(workspace, `/ledger/delta?role=${enc(String(a.role))}`),
              undefined,
              [],
              'role',
            ),
          report: () =>
            run(ctx, 'GET', ws(workspace, '/ledger/report'), undefined, [], 'workspace'),
        },
      );
    },
  }),
  defineTool({
    name: 'validate_message',
    description:
      'Check a typed message against schema 2.0.0 → {valid, errors}. With workspace: deliver it there on receipt (an invalid one is refused; its second invalid attempt escalates).',
    input: z.object({
      message: z.looseObject({}),
      workspace: WorkspaceId.optional().meta({ description: 'Deliver it to this workspace' }),
    }),
    output: Loose,
    handler: (a, ctx) =>
      a.workspace === undefined
        ? run(ctx, 'POST', '/v1/heimdall/validate', a.message, [], 'message')
        : run(ctx, 'POST', ws(a.workspace, '/messages'), a.message, [], 'message'),
  }),
];
