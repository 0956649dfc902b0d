import * as z from 'zod';
import { defineTool } from '../../kernel/mcp-tool';
import { enc, postAs, run, Workspace, ws } from './mcp-shared';

/**
 * The seed's heimdall-ledger-mcp tool contract (v1.0.0): its six tools with
 * its names and arguments, each a call of the workspace routes
 * (`/v1/workspaces/{ws}/…`) as the caller, attributed to the caller's HAID.
 * `workspace` is an addition (the seed serves one repository): optional,
 * `default` when omitted.
 */

const Surfaces = z
  .array(z.string().min(1))
  .min(1)
  .meta({ description: 'Path globs, e.g. `src/a/**`' });
const Claim = z.looseObject({ claim_id: z.string(), haid: z.string(), task_ref: z.string() });

export const HEIMDALL_TOOLS = [
  defineTool({
    name: 'read_claims',
    description: 'Live surface claims of the workspace (holder HAID, globs, task, expiry) + count.',
    input: z.object({ workspace: Workspace }),
    output: z.object({ claims: z.array(Claim), count: z.number() }),
    handler: (args, ctx) =>
      run(ctx, 'GET', ws(args.workspace, '/claims'), undefined, [], 'workspace'),
  }),
  defineTool({
    name: 'make_claim',
    description:
      'Claim path globs for a task. Refused if any glob can match a live claim of another HAID (names the holder).',
    input: z.object({
      workspace: Workspace,
      surfaces: Surfaces,
      task: z.string().min(1).meta({ description: 'Task id, e.g. `T-9`' }),
      ttl_minutes: z.number().positive().optional(),
      mode: z.enum(['exclusive', 'shared']).optional(),
    }),
    output: z.object({ claim: Claim }),
    handler: ({ workspace, ...claim }, ctx) =>
      postAs(ctx, workspace, '/claims', claim, 'surfaces', [
        'surfaces',
        'task',
        'ttl_minutes',
        'mode',
      ]),
  }),
  defineTool({
    name: 'release_claim',
    description: 'Release every live claim of a HAID (yours or one of your clients).',
    input: z.object({
      workspace: Workspace,
      haid: z.string().min(1).meta({ description: 'The HAID whose claims to release' }),
    }),
    output: z.object({ released: z.array(z.string()) }),
    handler: (args, ctx) =>
      run(
        ctx,
        'POST',
        ws(args.workspace, '/claims/release'),
        { haid: args.haid },
        ['haid'],
        'haid',
      ),
  }),
  defineTool({
    name: 'read_capsules',
    description: 'A context capsule (what/where/decision/gotcha/depends) and its markdown.',
    input: z.object({
      workspace: Workspace,
      id: z.string().min(1).meta({ description: 'Capsule id, e.g. `w1`' }),
    }),
    output: z.object({ capsule: z.looseObject({ id: z.string() }) }),
    handler: (args, ctx) =>
      run(ctx, 'GET', ws(args.workspace, `/capsules/${enc(args.id)}`), undefined, ['id'], 'id'),
  }),
  defineTool({
    name: 'append_decision',
    description: 'Append a HAID-attributed entry to the decisions log (append-only).',
    input: z.object({ workspace: Workspace, title: z.string().min(1), body: z.string().min(1) }),
    output: z.object({ decision: z.looseObject({ seq: z.number(), haid: z.string() }) }),
    handler: (args, ctx) =>
      run(
        ctx,
        'POST',
        ws(args.workspace, '/decisions'),
        { title: args.title, body: args.body, haid: ctx.haid },
        ['title', 'body'],
        'title',
      ),
  }),
  defineTool({
    name: 'raise_conflict_pr',
    description:
      'Author conflicts/{date}-{id}.md, cross-linked from the decisions log; returns its path.',
    input: z.object({
      workspace: Workspace,
      id: z.string().min(1),
      title: z.string().min(1),
      surfaces: Surfaces,
      displaced_haid: z.string().optional(),
      overriding_intent: z.string().optional(),
      displaced_intent: z.string().optional(),
    }),
    output: z.looseObject({ path: z.string(), decision_seq: z.number() }),
    handler: ({ workspace, ...record }, ctx) => postAs(ctx, workspace, '/conflicts', record, 'id'),
  }),
];
