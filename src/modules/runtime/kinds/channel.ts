import { accept, type Effect } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { type Draft, fail, type Wire } from '../../../protocol';
import { copyTo, memberOf, messageTypeOf, rtId, type SystemEvent, systemDraft } from '../envelope';
import { estimateTokens, LEVELS, type RouteAction } from '../payloads';
import { type ChannelState, evolveChannel, initialChannel } from './channel-state';
import { THRESHOLDS } from './compactor';
import { decideRoute } from './policy';
import { read } from './read';
import { runtimeKind } from './runtime-kind';

/** What clients may post on a channel; the rest is written by the runtime itself. */
const FROM_CLIENTS = new Set([
  'channel.opened',
  'channel.message.received',
  'compactor.summary.applied',
]);

export const channelIdOf = (streamId: string) => streamId.slice('channel:'.length);
export const branchIdFor = (channelId: string, seq: number) => `${channelId}-b${seq}`;
export const workerIdFor = (channelId: string, seq: number) => `${channelId}-w${seq}`;
export const jobIdFor = (channelId: string, seq: number, level: string) =>
  `${channelId}-c${seq}-${level}`;

function decideMessage(
  command: Wire,
  state: ChannelState,
  now: number,
): readonly Draft[] | ReturnType<typeof fail> {
  const channelId = channelIdOf(command.stream_id);
  const p = read('channel.message.received', command.payload);
  if (!p) return fail('invalid-wire', 'payload: not a channel.message.received');
  if (!state.opened || !state.policy)
    return fail(
      'not-found',
      `channel "${channelId}" is not open: create it with POST /v1/channels`,
    );
  const seq = command.stream_seq;
  const target = memberOf(command.payload, 'workerId');
  let rule: string;
  let route: RouteAction;
  if (target !== undefined) {
    // A user-chosen id: `constructor` must not find Object.prototype's.
    const worker = ownValue(state.workers, target);
    if (!worker)
      return fail('not-found', `worker "${target}" was not spawned in channel "${channelId}"`);
    if (worker.mode !== 'interactive')
      return fail(
        'worker-not-interactive',
        `worker "${target}" runs fire_and_forget: it takes no routed messages`,
      );
    if (worker.status === 'completed' || worker.status === 'failed')
      return fail(
        'invalid-transition',
        `worker "${target}" has ${worker.status}: it takes no more messages`,
      );
    rule = 'explicit-route';
    route = { action: 'route_worker', workerId: target };
  } else {
    const decision = decideRoute(state.policy, {
      text: p.text,
      role: p.role,
      metadata: p.metadata ?? {},
    });
    rule = decision.rule;
    route = decision.route;
  }
  const ts = new Date(now).toISOString();
  const base = { streamId: command.stream_id, ts, traceId: command.correlation_id, channelId };
  const decided: Record<string, string> = {
    messageId: command.wire_id,
    rule,
    action: route.action,
  };
  if (route.action === 'spawn_branch') decided.branchId = branchIdFor(channelId, seq);
  if (route.action === 'spawn_worker') decided.workerId = workerIdFor(channelId, seq);
  if (route.action === 'route_worker') decided.workerId = route.workerId;
  const drafts: Draft[] = [
    { ...command },
    systemDraft({
      ...base,
      messageType: 'channel.route.decided',
      wireId: rtId('route', command.wire_id),
      branchId: decided.branchId,
      workerId: decided.workerId,
      payload: decided,
    }),
  ];
  // The compactor: utilization after this message; each level crossed fires once.
  const tokens = p.tokens ?? estimateTokens(p.text);
  const live = state.liveTokens + tokens;
  const utilization = live / state.contextBudget;
  const from = state.segments[0]?.from ?? seq;
  LEVELS.forEach((level, i) => {
    if (i + 1 <= state.level || utilization <= THRESHOLDS[level]) return;
    drafts.push(
      systemDraft({
        ...base,
        messageType: 'compactor.threshold.hit',
        wireId: rtId('threshold', seq, level),
        payload: {
          level,
          threshold: THRESHOLDS[level],
          utilization: Math.round(utilization * 10_000) / 10_000,
          liveTokens: live,
          contextBudget: state.contextBudget,
          fromSeq: from,
          toSeq: seq,
          jobWorkerId: jobIdFor(channelId, seq, level),
        },
      }),
    );
  });
  const { stream_seq: _s, ...first } = drafts[0] as Wire;
  drafts[0] = first;
  return drafts;
}

function decide(command: Wire, state: ChannelState, now: number) {
  const type = messageTypeOf(command.type);
  const channelId = channelIdOf(command.stream_id);
  if (command.sender !== 'system' && !FROM_CLIENTS.has(type))
    return fail('invalid-transition', `only the runtime writes "${type}" on a channel`);
  switch (type) {
    case 'channel.opened':
      if (state.opened) return fail('invalid-transition', `channel "${channelId}" is already open`);
      break;
    case 'channel.message.received':
      if (command.sender !== 'system') return decideMessage(command, state, now);
      break;
    case 'compactor.summary.applied': {
      if (!state.opened) return fail('not-found', `channel "${channelId}" is not open`);
      const p = read('compactor.summary.applied', command.payload);
      if (p && (p.fromSeq > p.toSeq || p.toSeq >= command.stream_seq))
        return fail(
          'invalid-wire',
          `payload.toSeq: the summarized range ${p.fromSeq}-${p.toSeq} must be ordered and already in the channel (last seq ${command.stream_seq - 1})`,
          {
            errors: [
              { path: 'payload.toSeq', message: 'range must be ordered and in the channel' },
            ],
          },
        );
      break;
    }
  }
  return accept(command);
}

function react(_before: ChannelState, after: ChannelState, wire: Wire): Effect[] {
  const type = messageTypeOf(wire.type);
  const channelId = channelIdOf(wire.stream_id);
  const base = { ts: wire.ts, traceId: wire.correlation_id, channelId };
  /** One system Wire onto `target`, in the channel's trace. */
  const emit = (target: string, e: Omit<SystemEvent, 'streamId' | keyof typeof base>): Effect[] => [
    { target, draft: systemDraft({ ...base, streamId: target, ...e }) },
  ];
  if (type === 'channel.route.decided') {
    const p = read('channel.route.decided', wire.payload);
    const message = after.lastMessage;
    if (!p || !message) return [];
    const rule = after.policy?.rules.find((r) => r.id === p.rule)?.route ?? after.policy?.default;
    if (p.action === 'spawn_branch' && p.branchId) {
      const goal =
        rule?.action === 'spawn_branch' && rule.goal ? rule.goal : message.text.slice(0, 500);
      const target = `branch:${p.branchId}`;
      return emit(target, {
        messageType: 'branch.spawned',
        wireId: rtId('spawned', p.branchId),
        branchId: p.branchId,
        payload: { fromMessageId: p.messageId, goal },
      });
    }
    if (p.action === 'spawn_worker' && p.workerId && rule?.action === 'spawn_worker') {
      const target = `worker:${p.workerId}`;
      const spec: Record<string, string | number | string[]> = {
        goal: message.text.slice(0, 500),
        toolset: rule.toolset,
        mode: rule.mode,
        timeoutSeconds: rule.timeoutSeconds ?? 300,
      };
      return emit(target, {
        messageType: 'worker.spawned',
        wireId: rtId('spawned', p.workerId),
        workerId: p.workerId,
        payload: spec,
      });
    }
    if (p.action === 'route_worker' && p.workerId) {
      const target = `worker:${p.workerId}`;
      const payload: Record<string, string | Record<string, string | number | boolean>> = {
        text: message.text,
        role: message.role,
      };
      if (message.metadata) payload.metadata = message.metadata;
      return emit(target, {
        messageType: 'channel.message.received',
        wireId: rtId('routed', channelId, message.messageId),
        workerId: p.workerId,
        payload,
      });
    }
    return [];
  }
  if (type === 'compactor.threshold.hit') {
    const p = read('compactor.threshold.hit', wire.payload);
    if (!p) return [];
    const target = `worker:${p.jobWorkerId}`;
    return emit(target, {
      messageType: 'worker.spawned',
      wireId: rtId('spawned', p.jobWorkerId),
      workerId: p.jobWorkerId,
      payload: {
        goal: `summarize seq ${p.fromSeq}-${p.toSeq} of channel ${channelId} (${p.level})`,
        toolset: ['summarize'],
        mode: 'fire_and_forget',
        timeoutSeconds: 300,
        job: { kind: 'summarize', level: p.level, fromSeq: p.fromSeq, toSeq: p.toSeq },
      },
    });
  }
  return [];
}

/** `channel:<id>`: FR-3's channel, with the compactor's thresholds (FR-6). */
export const channelKind = runtimeKind<ChannelState>('channel', {
  initialState: initialChannel,
  decide: (command, state, ctx) => decide(command, state, ctx.now),
  evolve: evolveChannel,
  react,
});

export { copyTo };
