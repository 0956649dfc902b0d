import * as z from 'zod';
import {
  defineTool,
  dispatch,
  firstErrorPath,
  type McpToolContext,
  outcomeOf,
  type ToolOutcome,
  type ToolProblem,
  toolRefusal,
  toolResult,
} from '../../kernel/mcp-tool';
import { hasOwnKey, ownValue } from '../../kernel/records';
import { newWireId } from '../../protocol/ids';

/**
 * Runtime v1 over MCP: the channel side and the worker side, one tool each
 * with an `action` (every tool's schema is paid for on `tools/list`). Each
 * action is one call of the REST route a client would make, as the caller, in
 * Envelope v1; a refusal names the tool argument at fault.
 */

const enc = encodeURIComponent;
const Id = z.string().optional();
const Text = z.string().optional();
const Loose = z.looseObject({});

/** Envelope members and payload fields, by the tool argument that carries them. */
const ARG_OF: Record<string, string> = {
  channelId: 'channel_id',
  workerId: 'worker_id',
  text: 'text',
  role: 'role',
  policy: 'policy',
  contextBudget: 'context_budget',
  goal: 'goal',
  toolset: 'toolset',
  mode: 'mode',
  timeoutSeconds: 'timeout_seconds',
  status: 'status',
  note: 'note',
  summary: 'summary',
  outcome: 'outcome',
  artifactRefs: 'artifact_refs',
  tokenUsage: 'tokens',
  message: 'message',
  reason: 'reason',
};

/** The argument a problem is about: the deepest path segment that is one, else `fallback`. */
function blame(p: ToolProblem, fallback: string): string {
  const hit = (firstErrorPath(p) ?? '')
    .split(/[./[\]]/)
    .reverse()
    .find((s) => hasOwnKey(ARG_OF, s));
  return (hit && ownValue(ARG_OF, hit)) ?? fallback;
}

async function call(
  ctx: McpToolContext,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  fallback: string,
): Promise<ToolOutcome> {
  const res = await ctx.api(method, path, body);
  return outcomeOf(res, (p) => blame(p, fallback));
}

function envelope(type: string, channelId: string, payload: object, more: object = {}) {
  const messageId = `mcp-${newWireId()}`;
  const ts = new Date().toISOString();
  return {
    protocolVersion: '1.0',
    messageId,
    messageType: type,
    ts,
    traceId: messageId,
    channelId,
    payload,
    extensions: {},
    ...more,
  };
}

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const channelTool = defineTool({
  name: 'runtime_channel',
  description:
    'Runtime v1 channel. open channel_id+policy {rules,default} [context_budget]; say channel_id+text [to worker_id, role] → routed by the policy; state; events [after_seq]; bulletins.',
  input: z.object({
    action: z.enum(['open', 'say', 'state', 'events', 'bulletins']),
    channel_id: Id,
    text: Text,
    to: Id,
    role: Text,
    policy: Loose.optional(),
    context_budget: z.int().min(1).optional(),
    after_seq: z.int().min(0).optional(),
  }),
  output: Loose,
  handler: (a, ctx) => {
    const ch = `/v1/channels/${enc(String(a.channel_id))}`;
    return dispatch(
      a,
      {
        open: ['channel_id', 'policy'],
        say: ['channel_id', 'text'],
        state: ['channel_id'],
        events: ['channel_id'],
        bulletins: [],
      },
      {
        open: () =>
          call(
            ctx,
            'POST',
            '/v1/channels',
            envelope('channel.opened', String(a.channel_id), {
              policy: a.policy,
              contextBudget: a.context_budget ?? 8000,
            }),
            'policy',
          ),
        say: () =>
          call(
            ctx,
            'POST',
            a.to ? `${ch}/route/${enc(a.to)}` : `${ch}/messages`,
            envelope(
              'channel.message.received',
              String(a.channel_id),
              defined({ text: a.text, role: a.role }),
            ),
            a.to ? 'to' : 'text',
          ),
        state: () => call(ctx, 'GET', `${ch}/state`, undefined, 'channel_id'),
        events: () =>
          call(
            ctx,
            'GET',
            `${ch}/events?after_seq=${a.after_seq ?? 0}&limit=20`,
            undefined,
            'channel_id',
          ),
        bulletins: () => call(ctx, 'GET', '/v1/bulletins?limit=3', undefined, 'action'),
      },
    );
  },
});

const workerTool = defineTool({
  name: 'runtime_worker',
  description:
    'Runtime v1 worker. spawn worker_id+channel_id+goal [toolset mode timeout_seconds]; progress status [note]; complete summary [outcome artifact_refs tokens]; fail message; state; messages [after_seq] → messages routed to it.',
  input: z.object({
    action: z.enum(['spawn', 'progress', 'complete', 'fail', 'state', 'messages']),
    worker_id: z.string(),
    channel_id: Id,
    goal: Text,
    toolset: z.array(z.string()).optional(),
    mode: z.enum(['fire_and_forget', 'interactive']).optional(),
    timeout_seconds: z.int().min(1).optional(),
    status: z.enum(['running', 'waiting']).optional(),
    note: Text,
    summary: Text,
    outcome: z.enum(['success', 'partial', 'no_op']).optional(),
    artifact_refs: z.array(z.string()).optional(),
    tokens: z.object({ input: z.int().min(0), output: z.int().min(0) }).optional(),
    message: Text,
    after_seq: z.int().min(0).optional(),
  }),
  output: Loose,
  handler: (a, ctx) => {
    const w = `/v1/workers/${enc(a.worker_id)}`;
    const report = async (type: string, payload: object, fallback: string) => {
      let where = { channelId: a.channel_id, branchId: undefined as unknown };
      if (!a.channel_id) {
        const s = await ctx.api('GET', `${w}/state`);
        if (!s.ok) return toolRefusal(s, 'worker_id');
        where = { channelId: s.body.channelId as string, branchId: s.body.branchId ?? undefined };
      }
      const more = defined({ workerId: a.worker_id, branchId: where.branchId });
      return call(
        ctx,
        'POST',
        `${w}/events`,
        envelope(type, String(where.channelId), payload, more),
        fallback,
      );
    };
    return dispatch(
      a,
      {
        spawn: ['channel_id', 'goal'],
        progress: ['status'],
        complete: ['summary'],
        fail: ['message'],
        state: [],
        messages: [],
      },
      {
        spawn: () =>
          call(
            ctx,
            'POST',
            '/v1/workers',
            envelope(
              'worker.spawned',
              String(a.channel_id),
              defined({
                goal: a.goal,
                toolset: a.toolset ?? [],
                mode: a.mode ?? 'fire_and_forget',
                timeoutSeconds: a.timeout_seconds,
              }),
              { workerId: a.worker_id },
            ),
            'worker_id',
          ),
        progress: () =>
          report('worker.progress', defined({ status: a.status, note: a.note }), 'status'),
        complete: () =>
          report(
            'worker.completed',
            defined({
              report: { summary: a.summary, outcome: a.outcome ?? 'success' },
              artifactRefs: a.artifact_refs ?? [],
              tokenUsage: a.tokens,
            }),
            'summary',
          ),
        fail: () => report('worker.failed', { reason: 'error', message: a.message }, 'message'),
        state: () => call(ctx, 'GET', `${w}/state`, undefined, 'worker_id'),
        messages: async () => {
          const stream = `/v1/streams/${enc(`worker:${a.worker_id}`)}/wires?after_seq=${a.after_seq ?? 0}&limit=100`;
          const res = await ctx.api('GET', stream);
          if (!res.ok) return toolRefusal(res, 'worker_id');
          const wires = res.body.wires as {
            stream_seq: number;
            type: string;
            payload: Record<string, unknown>;
          }[];
          const messages = wires
            .filter((x) => x.type === 'runtime.channel.message.received')
            .map((x) => ({
              seq: x.stream_seq,
              text: x.payload.text,
              role: x.payload.role ?? 'user',
            }));
          // The cursor is the last Wire this page read, not the stream's end:
          // resuming from the stream's last_seq would skip what the page left out.
          const last = wires.at(-1)?.stream_seq ?? a.after_seq ?? 0;
          return toolResult({ messages, last_seq: last, more: res.body.next_after_seq != null });
        },
      },
    );
  },
});

export const RUNTIME_TOOLS = [channelTool, workerTool];
