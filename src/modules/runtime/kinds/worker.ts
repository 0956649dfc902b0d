import { accept, type Effect } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { type Draft, fail, type Wire } from '../../../protocol';
import { copyTo, memberOf, messageTypeOf, rtId, systemDraft } from '../envelope';
import type { TokenUsage } from '../payloads';
import { read } from './read';
import { runtimeKind } from './runtime-kind';

/**
 * `worker:<id>` (FR-5). Status transitions are explicit and enforced:
 *
 *   (none) → spawned → running ⇄ waiting → completed | failed
 *
 * `worker.progress` moves it to `running` or `waiting`; a message the channel
 * routes to an interactive worker moves it to `running`; `worker.completed` /
 * `worker.failed` end it. A worker silent (no Wire of its own, no routed
 * message) for longer than its `timeoutSeconds` is failed by the alarm with
 * reason `timeout`. Silence is measured from each Wire's `ts`.
 */
export type WorkerStatus = 'none' | 'spawned' | 'running' | 'waiting' | 'completed' | 'failed';

export interface WorkerState {
  status: WorkerStatus;
  channelId: string | null;
  branchId: string | null;
  mode: string | null;
  toolset: string[];
  goal: string | null;
  timeoutMs: number;
  lastActivityAt: number;
  routedMessages: number;
  progress: { note?: string | undefined; percent?: number | undefined } | null;
  report: unknown;
  artifactRefs: string[];
  failure: { reason: string; message: string } | null;
  tokenUsage: TokenUsage;
}

export const TERMINAL: readonly WorkerStatus[] = ['completed', 'failed'];

const ALLOWED: Record<string, readonly WorkerStatus[]> = {
  'worker.spawned': ['none'],
  'worker.progress': ['spawned', 'running', 'waiting'],
  'channel.message.received': ['spawned', 'running', 'waiting'],
  'worker.completed': ['spawned', 'running', 'waiting'],
  'worker.failed': ['spawned', 'running', 'waiting'],
};

export function initialWorker(): WorkerState {
  return {
    status: 'none',
    channelId: null,
    branchId: null,
    mode: null,
    toolset: [],
    goal: null,
    timeoutMs: 300_000,
    lastActivityAt: 0,
    routedMessages: 0,
    progress: null,
    report: null,
    artifactRefs: [],
    failure: null,
    tokenUsage: { input: 0, output: 0 },
  };
}

function addUsage(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  return b ? { input: a.input + b.input, output: a.output + b.output } : a;
}

export function evolveWorker(state: WorkerState, wire: Wire): WorkerState {
  const type = messageTypeOf(wire.type);
  const at = Math.max(state.lastActivityAt, Date.parse(wire.ts) || 0);
  switch (type) {
    case 'worker.spawned': {
      const p = read('worker.spawned', wire.payload);
      if (!p) return state;
      return {
        ...state,
        status: 'spawned',
        channelId: memberOf(wire.payload, 'channelId') ?? null,
        branchId: memberOf(wire.payload, 'branchId') ?? null,
        mode: p.mode,
        toolset: p.toolset,
        goal: p.goal,
        timeoutMs: p.timeoutSeconds * 1000,
        lastActivityAt: at,
      };
    }
    case 'worker.progress': {
      const p = read('worker.progress', wire.payload);
      if (!p) return state;
      return {
        ...state,
        status: p.status,
        progress: { note: p.note, percent: p.percent },
        tokenUsage: addUsage(state.tokenUsage, p.tokenUsage),
        lastActivityAt: at,
      };
    }
    case 'channel.message.received':
      return {
        ...state,
        status: 'running',
        routedMessages: state.routedMessages + 1,
        lastActivityAt: at,
      };
    case 'worker.completed': {
      const p = read('worker.completed', wire.payload);
      if (!p) return state;
      return {
        ...state,
        status: 'completed',
        report: p.report,
        artifactRefs: p.artifactRefs,
        tokenUsage: addUsage(state.tokenUsage, p.tokenUsage),
        lastActivityAt: at,
      };
    }
    case 'worker.failed': {
      const p = read('worker.failed', wire.payload);
      if (!p) return state;
      return {
        ...state,
        status: 'failed',
        failure: { reason: p.reason, message: p.message },
        tokenUsage: addUsage(state.tokenUsage, p.tokenUsage),
        lastActivityAt: at,
      };
    }
    default:
      return state;
  }
}

function decide(command: Wire, state: WorkerState) {
  const type = messageTypeOf(command.type);
  const workerId = command.stream_id.slice('worker:'.length);
  const allowed = ownValue(ALLOWED, type);
  if (!allowed) return fail('invalid-transition', `"${type}" is no worker event`);
  if (type === 'channel.message.received' && command.sender !== 'system')
    return fail(
      'invalid-transition',
      'messages reach a worker through its channel (POST /v1/channels/{id}/route/{workerId})',
    );
  if (!allowed.includes(state.status)) {
    if (state.status === 'none') return fail('not-found', `worker "${workerId}" was never spawned`);
    return fail(
      'invalid-transition',
      `worker "${workerId}" is ${state.status}: "${type}" is not allowed from there`,
    );
  }
  if (type === 'channel.message.received' && state.mode !== 'interactive')
    return fail(
      'worker-not-interactive',
      `worker "${workerId}" runs fire_and_forget: it takes no routed messages`,
    );
  if (type === 'worker.spawned' && memberOf(command.payload, 'workerId') !== workerId)
    return fail('invalid-wire', `workerId: must be "${workerId}", the worker this stream is for`, {
      errors: [{ path: 'workerId', message: `must be "${workerId}"` }],
    });
  return accept(command);
}

/** Lifecycle events (status changes, the end) go to the worker's branch, or else its channel. */
function react(before: WorkerState, after: WorkerState, wire: Wire): Effect[] {
  const type = messageTypeOf(wire.type);
  const lifecycle =
    type === 'worker.spawned' ||
    type === 'worker.completed' ||
    type === 'worker.failed' ||
    (type === 'worker.progress' && before.status !== after.status);
  if (!lifecycle) return [];
  // A branch's workers report to the branch: the channel hears only its conclusion.
  const target = after.branchId
    ? `branch:${after.branchId}`
    : after.channelId
      ? `channel:${after.channelId}`
      : null;
  return target ? [{ target, draft: copyTo(wire, target) }] : [];
}

function tick(state: WorkerState, now: number, streamId: string): Draft[] {
  if (state.status === 'none' || TERMINAL.includes(state.status)) return [];
  const deadline = state.lastActivityAt + state.timeoutMs;
  if (now < deadline) return [];
  const workerId = streamId.slice('worker:'.length);
  return [
    systemDraft({
      streamId,
      messageType: 'worker.failed',
      wireId: rtId('timeout', workerId, state.lastActivityAt),
      ts: new Date(now).toISOString(),
      traceId: null,
      channelId: state.channelId ?? '',
      branchId: state.branchId ?? undefined,
      workerId,
      payload: {
        reason: 'timeout',
        message: `silent for more than ${Math.round(state.timeoutMs / 1000)} s (last heard ${new Date(state.lastActivityAt).toISOString()})`,
      },
    }),
  ];
}

export const workerKind = runtimeKind<WorkerState>('worker', {
  initialState: initialWorker,
  decide,
  evolve: evolveWorker,
  react,
  tick,
  wakeAt: (state) =>
    state.status === 'none' || TERMINAL.includes(state.status)
      ? null
      : state.lastActivityAt + state.timeoutMs,
});
