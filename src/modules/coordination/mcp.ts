import * as z from 'zod';
import {
  type ApiAnswer,
  argumentOf,
  defineTool,
  type McpToolContext,
  outcomeOf,
  type ToolOutcome,
  toolRefusal,
  toolResult,
} from '../../kernel/mcp-tool';
import { draftOf } from '../../protocol/envelope';
import { newWireId } from '../../protocol/ids';

/**
 * Seed 000 over MCP: an agent appends and reads Wires, finds tasks offered to
 * its role, claims one and heartbeats, releases or completes it — the
 * fencing token is read from the task's lease for it, never carried by the
 * agent. Each tool calls the REST route a client would.
 */

const enc = encodeURIComponent;
const TaskId = z.string().min(1).max(200);
const Attempt = z.int().min(1).max(1000).default(1);
const Json = z.record(z.string(), z.unknown());

const taskStream = (task: string, attempt: number) => `task:${task}:attempt:${attempt}`;
/** The agent name a claim carries: the token subject without its `agent:` prefix. */
const agentOf = (root: string) => (root.startsWith('agent:') ? root.slice(6) : root);

function wire(stream: string, type: string, ctx: McpToolContext, payload: Record<string, unknown>) {
  const ts = new Date(ctx.now).toISOString();
  const sender = ctx.root;
  return draftOf({ wire_id: newWireId(), stream_id: stream, type, sender, ts, payload });
}

function append(ctx: McpToolContext, stream: string, body: unknown): Promise<ApiAnswer> {
  return ctx.api('POST', `/v1/streams/${enc(stream)}/wires`, body);
}

const Receipt = z.looseObject({ wire_id: z.string(), stream_seq: z.number() });

/** A fenced lifecycle Wire on a task the caller holds: the fencing token comes from its lease. */
async function fenced(
  ctx: McpToolContext,
  args: { task_id: string; attempt: number },
  type: string,
  payload: Record<string, unknown> = {},
): Promise<ToolOutcome> {
  const stream = taskStream(args.task_id, args.attempt);
  const view = await ctx.api('GET', `/v1/coordination/${enc(stream)}`);
  if (!view.ok) return toolRefusal(view, 'task_id');
  const lease = (view.body.state as { lease?: { sender?: string; fencingToken?: string } } | null)
    ?.lease;
  if (!lease?.fencingToken || lease.sender !== ctx.root) {
    return {
      ok: false,
      argument: 'task_id',
      problem: {
        status: 409,
        type: '/problems/not-lease-holder',
        detail: lease?.sender
          ? `${stream} is held by ${lease.sender}, not by ${ctx.root}`
          : `${stream} has no live lease: claim it first (claim_task)`,
      },
    };
  }
  const body = wire(stream, type, ctx, {
    task_id: args.task_id,
    fencing_token: lease.fencingToken,
    haid: ctx.haid,
    ...payload,
  });
  const res = await append(ctx, stream, body);
  if (!res.ok) return toolRefusal(res, argumentOf(res.problem, ['task_id'], 'task_id'));
  return toolResult({ ...res.body, fencing_token: lease.fencingToken });
}

const LeaseResult = Receipt.extend({ fencing_token: z.string().optional() });

/** A tool that appends one fenced lifecycle Wire of `type` to a task the caller holds. */
function fencedTool(name: string, description: string, type: string) {
  return defineTool({
    name,
    description,
    input: z.object({ task_id: TaskId, attempt: Attempt }),
    output: LeaseResult,
    handler: (args, ctx) => fenced(ctx, args, type),
  });
}

export const COORDINATION_TOOLS = [
  defineTool({
    name: 'append_wire',
    description:
      'Append a Wire to a stream as the token subject (sender). Refusals name the field at fault.',
    input: z.object({
      stream_id: z.string().meta({ description: '`<kind>:<id>`, e.g. `project:kv-m02`' }),
      type: z.string().meta({ description: 'Wire type, e.g. `review.concern`' }),
      payload: Json.meta({ description: 'The payload object' }),
      wire_id: z.string().optional().meta({ description: 'Idempotency key' }),
      correlation_id: z.string().optional(),
      causation_id: z.string().optional(),
    }),
    output: Receipt,
    async handler(args, ctx) {
      const body = {
        ...wire(args.stream_id, args.type, ctx, args.payload),
        ...(args.wire_id ? { wire_id: args.wire_id } : {}),
        correlation_id: args.correlation_id ?? null,
        causation_id: args.causation_id ?? null,
      };
      const res = await append(ctx, args.stream_id, body);
      const names = ['stream_id', 'type', 'payload', 'wire_id', 'correlation_id', 'causation_id'];
      return outcomeOf(res, (p) => argumentOf(p, names, 'stream_id'));
    },
  }),
  defineTool({
    name: 'read_stream',
    description: 'Read Wires of a stream in order, after a sequence number.',
    input: z.object({
      stream_id: z.string(),
      after_seq: z
        .int()
        .min(0)
        .max(2 ** 31)
        .default(0),
      limit: z.int().min(1).max(200).default(50),
    }),
    output: z.looseObject({ wires: z.array(z.looseObject({})) }),
    async handler(args, ctx) {
      const q = `after_seq=${args.after_seq}&limit=${args.limit}`;
      const res = await ctx.api('GET', `/v1/streams/${enc(args.stream_id)}/wires?${q}`);
      return outcomeOf(res, 'stream_id');
    },
  }),
  defineTool({
    name: 'list_available_tasks',
    description: 'Task attempts offered to a role and not yet claimed (from the task read model).',
    input: z.object({ role: z.string().min(1), limit: z.int().min(1).max(200).default(50) }),
    output: z.looseObject({ tasks: z.array(z.looseObject({})) }),
    async handler(args, ctx) {
      const q = `status=available&role=${enc(args.role)}&limit=${args.limit}`;
      const res = await ctx.api('GET', `/v1/tasks?${q}`);
      return outcomeOf(res, 'role');
    },
  }),
  defineTool({
    name: 'claim_task',
    description:
      'Claim a task attempt for the token subject: a fenced lease. A held task names its holder.',
    input: z.object({
      task_id: TaskId,
      role: z.string().min(1).meta({ description: 'The role it was offered to' }),
      attempt: Attempt,
      lease_seconds: z.int().min(1).max(86_400).default(600),
      capacity_units: z.int().min(0).max(1_000_000).optional(),
    }),
    output: LeaseResult,
    async handler(args, ctx) {
      const stream = taskStream(args.task_id, args.attempt);
      const payload: Record<string, unknown> = {
        task_id: args.task_id,
        agent: agentOf(ctx.root),
        role: args.role,
        // From ctx.now, not the clock: the same lease when the call is made again to sign it.
        lease_expires_at: new Date(ctx.now + args.lease_seconds * 1000).toISOString(),
        haid: ctx.haid,
      };
      if (args.capacity_units !== undefined) payload.capacity_units_reserved = args.capacity_units;
      const res = await append(ctx, stream, wire(stream, 'task.claimed', ctx, payload));
      return outcomeOf(res, (p) => argumentOf(p, ['task_id', 'role'], 'task_id'));
    },
  }),
  fencedTool(
    'heartbeat_task',
    'Renew the lease of a task you hold (fencing token handled for you).',
    'task.heartbeat',
  ),
  fencedTool('release_task', 'Hand back a task you hold so it is offered again.', 'task.released'),
  defineTool({
    name: 'complete_task',
    description: 'Complete a task you hold, optionally naming its output by reference.',
    input: z.object({
      task_id: TaskId,
      attempt: Attempt,
      output_ref: z.string().optional(),
      sha256: z.string().optional(),
    }),
    output: LeaseResult,
    handler: (args, ctx) => {
      const extra: Record<string, unknown> = {};
      if (args.output_ref !== undefined) extra.output_ref = args.output_ref;
      if (args.sha256 !== undefined) extra.sha256 = args.sha256;
      return fenced(ctx, args, 'task.complete', extra);
    },
  }),
];
