import * as z from 'zod';
import {
  argumentOf,
  defineTool,
  firstErrorPath,
  type McpToolContext,
  type ToolOutcome,
  type ToolProblem,
  toolRefusal,
  toolResult,
} from '../../kernel/mcp-tool';
import { newWireId } from '../../protocol/ids';
import { ACTOR_MESSAGES } from './catalogue';

/**
 * Seed 002's harness tools over MCP: `message_actor` (one typed actor
 * message to the run's writer) and `request_conductor` (a `ConductorRequest`
 * to the run's conductors), plus reading the document and its revisions.
 * Each calls the `/v1/runs` route a client would, as the caller. A
 * `WriterReject` is a normal result, as the REST route answers it (201,
 * `Writer-Verdict: WriterReject`): the message reached the run and is stored
 * with its verdict. A tool error means it never reached the run and nothing
 * was stored (the REST 4xx problem), naming the argument at fault.
 */

const enc = encodeURIComponent;
const RunIdArg = z.string().min(1);
const MessageId = z.string().optional().meta({ description: 'Idempotency key' });

/** `{type, run_id, message_id, revision}` + `outcome`, `proposal_id` (ack) or `reason` (reject), `replay` on a retry. */
const Verdict = z.looseObject({
  type: z.enum(['WriterAck', 'WriterReject']),
  revision: z.number(),
});

/** Which argument a refusal of the run's routes is about; `body` names the message's own fields. */
function blame(p: ToolProblem, args: readonly string[], body: (path: string) => string | null) {
  const type = String(p.type);
  if (type.endsWith('/wire-id-conflict')) return 'message_id';
  if (type.endsWith('/revision-not-found')) return 'revision';
  if (type.endsWith('/run-not-found') || type.endsWith('/not-run-party')) return 'run_id';
  const named = argumentOf(p, args, null);
  if (named) return named;
  const path = firstErrorPath(p);
  if (path !== null) return body(path);
  return /^path run_id/.test(String(p.detail ?? '')) ? 'run_id' : null;
}

/** Sends one actor message; the verdict is the result, whatever it says. */
async function send(
  ctx: McpToolContext,
  runId: string,
  message: Record<string, unknown>,
  messageId: string | undefined,
  args: readonly string[],
  body: (path: string) => string | null,
): Promise<ToolOutcome> {
  // A run_id inside the message that differs from the argument is refused by the route, not overridden.
  const res = await ctx.api('POST', `/v1/runs/${enc(runId)}/messages`, {
    run_id: runId,
    ...message,
    message_id: messageId ?? message.message_id ?? newWireId(),
  });
  if (!res.ok) return toolRefusal(res, blame(res.problem, args, body));
  return toolResult(res.status === 200 ? { ...res.body, replay: true } : res.body);
}

export const WRITER_TOOLS = [
  defineTool({
    name: 'message_actor',
    description:
      "Send one typed actor message to a run's writer. Result: WriterAck {revision, outcome} or WriterReject {reason} (a reject is an answer, not an error). Workers' changes become proposals; only the writer changes canon.",
    input: z.object({
      run_id: RunIdArg,
      message: z.looseObject({ type: z.string() }).meta({
        description: `{type, ...fields}, type one of ${Object.keys(ACTOR_MESSAGES).join(', ')}`,
      }),
      message_id: MessageId,
    }),
    output: Verdict,
    handler: (args, ctx) =>
      send(ctx, args.run_id, args.message, args.message_id, ['run_id', 'message_id'], (path) =>
        path === '(body)' ? 'message' : `message.${path}`,
      ),
  }),
  defineTool({
    name: 'request_conductor',
    description:
      "Ask a run's conductors for something (ConductorRequest, delivered to their mailbox). Result: WriterAck, outcome delivered; WriterReject when the run has no conductor.",
    input: z.object({
      run_id: RunIdArg,
      kind: z.string().meta({ description: 'Lower-case name, e.g. `spawn.worker`' }),
      payload: z.record(z.string(), z.unknown()).optional(),
      correlation: z.string().optional().meta({ description: 'Diagnostics only' }),
      message_id: MessageId,
    }),
    output: Verdict,
    handler: (args, ctx) => {
      const { run_id, message_id, ...fields } = args;
      const names = ['run_id', 'kind', 'payload', 'correlation', 'message_id'];
      return send(
        ctx,
        run_id,
        { type: 'ConductorRequest', ...fields },
        message_id,
        names,
        () => null,
      );
    },
  }),
  defineTool({
    name: 'read_run_document',
    description:
      "A run's canon (sections) at a revision, latest by default, with its proposals apart.",
    input: z.object({
      run_id: RunIdArg,
      revision: z.int().min(0).max(1_000_000_000).optional(),
    }),
    output: z.looseObject({ revision: z.number(), document: z.looseObject({}) }),
    async handler(args, ctx) {
      const q = args.revision === undefined ? '' : `?revision=${args.revision}`;
      const res = await ctx.api('GET', `/v1/runs/${enc(args.run_id)}/document${q}`);
      if (res.ok) return toolResult(res.body);
      return toolRefusal(
        res,
        blame(res.problem, ['run_id', 'revision'], () => 'revision'),
      );
    },
  }),
  defineTool({
    name: 'list_run_revisions',
    description: "A run's revisions: who and which message made each.",
    input: z.object({ run_id: RunIdArg }),
    output: z.looseObject({ revisions: z.array(z.looseObject({})) }),
    async handler(args, ctx) {
      const res = await ctx.api('GET', `/v1/runs/${enc(args.run_id)}/revisions`);
      if (res.ok) return toolResult(res.body);
      return toolRefusal(
        res,
        blame(res.problem, ['run_id'], () => 'run_id'),
      );
    },
  }),
];
