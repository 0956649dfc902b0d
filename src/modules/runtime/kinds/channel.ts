import { accept, type Effect } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import {
  type Draft,
  type Failure,
  type FieldIssue,
  fail,
  invalidWire,
  type Wire,
} from '../../../protocol';
import { copyTo, memberOf, messageTypeOf, rtId, type SystemEvent, systemDraft } from '../envelope';
import type { RouteAction } from '../payloads';
import { branchIdFor, CHANNEL_ID_MAX, channelIdOf, workerIdFor } from './channel-ids';
import { type ChannelState, evolveChannel, initialChannel } from './channel-state';
import { type Decision, decideRoute, ruleIdIssues } from './policy';
import { read } from './read';
import { runtimeKind } from './runtime-kind';
import { thresholdHits } from './thresholds';

/** What clients may post on a channel; the rest is written by the runtime itself. */
const FROM_CLIENTS = new Set([
  'channel.opened',
  'channel.message.received',
  'compactor.summary.applied',
]);

function decideMessage(
  command: Wire,
  state: ChannelState,
  now: number,
): readonly Draft[] | Failure {
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
  const decision: Decision =
    target !== undefined
      ? { rule: 'explicit-route', route: { action: 'route_worker', workerId: target } }
      : decideRoute(state.policy, { text: p.text, role: p.role, metadata: p.metadata ?? {} });
  const { route } = decision;
  // A policy's route to a worker is checked as a client's explicit one: the
  // message is refused rather than accepted and then never delivered.
  if (route.action === 'route_worker') {
    const refused = refuseRoute(state, channelId, route.workerId, decision.rule);
    if (refused) return refused;
  }
  const decided: Record<string, string | number> = {
    messageId: command.wire_id,
    rule: decision.rule,
    action: route.action,
  };
  // The position of the rule that fired: what `react` carries out (FR-3).
  if (decision.index !== undefined) decided.ruleIndex = decision.index;
  const branchId = route.action === 'spawn_branch' ? branchIdFor(channelId, seq) : undefined;
  const workerId =
    route.action === 'spawn_worker'
      ? workerIdFor(channelId, seq)
      : route.action === 'route_worker'
        ? route.workerId
        : undefined;
  if (branchId) decided.branchId = branchId;
  if (workerId) decided.workerId = workerId;
  return [
    accept(command)[0] as Draft,
    systemDraft({
      streamId: command.stream_id,
      ts: new Date(now).toISOString(),
      traceId: command.correlation_id,
      channelId,
      messageType: 'channel.route.decided',
      wireId: rtId('route', command.wire_id),
      branchId,
      workerId,
      payload: decided,
    }),
  ];
}

/**
 * Why a message may not go to `workerId`, or null: the worker was spawned in
 * this channel, is interactive and has not ended. The same checks whether a
 * client routes it (`rule` = `explicit-route`) or a policy rule does.
 */
function refuseRoute(
  state: ChannelState,
  channelId: string,
  workerId: string,
  rule: string,
): Failure | null {
  const by = rule === 'explicit-route' ? '' : ` (policy rule "${rule}" routes to it)`;
  // A user-chosen id: `constructor` must not find Object.prototype's.
  const worker = ownValue(state.workers, workerId);
  if (!worker)
    return fail('not-found', `worker "${workerId}" was not spawned in channel "${channelId}"${by}`);
  if (worker.mode !== 'interactive')
    return fail(
      'worker-not-interactive',
      `worker "${workerId}" runs fire_and_forget: it takes no routed messages${by}`,
    );
  if (worker.status === 'completed' || worker.status === 'failed')
    return fail(
      'invalid-transition',
      `worker "${workerId}" has ${worker.status}: it takes no more messages${by}`,
    );
  return null;
}

/** Why a channel may not open with this id and policy, or null. */
function refuseOpening(channelId: string, command: Wire): Failure | null {
  const issues: FieldIssue[] = [];
  if (channelId.length > CHANNEL_ID_MAX)
    issues.push({
      path: 'channelId',
      message: `is ${channelId.length} characters; a channel id has at most ${CHANNEL_ID_MAX}, so that the branch, worker and summarizer ids derived from it (<channel>-c<seq>-emergency the longest) fit a stream id's 100`,
    });
  const p = read('channel.opened', command.payload);
  if (p) issues.push(...ruleIdIssues(p.policy));
  return issues.length > 0 ? invalidWire(issues) : null;
}

function decide(command: Wire, state: ChannelState, now: number): readonly Draft[] | Failure {
  const decided = decideCommand(command, state, now);
  if (!Array.isArray(decided)) return decided as Failure;
  return [...(decided as readonly Draft[]), ...thresholdHits(command, state, now)];
}

function decideCommand(
  command: Wire,
  state: ChannelState,
  now: number,
): readonly Draft[] | Failure {
  const type = messageTypeOf(command.type);
  const channelId = channelIdOf(command.stream_id);
  if (command.sender !== 'system' && !FROM_CLIENTS.has(type))
    return fail('invalid-transition', `only the runtime writes "${type}" on a channel`);
  switch (type) {
    case 'channel.opened': {
      if (state.opened) return fail('invalid-transition', `channel "${channelId}" is already open`);
      const refused = refuseOpening(channelId, command);
      if (refused) return refused;
      break;
    }
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

/**
 * The route a decision took, as the decided Wire pins it: the rule at its
 * `ruleIndex`, else the default (never looked up by id, which a policy
 * stored before ids were checked may repeat). Undefined for an explicit
 * route, whose decision carries all it needs.
 */
function decidedRoute(
  state: ChannelState,
  p: { action: string; ruleIndex?: number | undefined },
): RouteAction | undefined {
  const route =
    p.ruleIndex === undefined ? state.policy?.default : state.policy?.rules[p.ruleIndex]?.route;
  return route?.action === p.action ? route : undefined;
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
    const rule = decidedRoute(after, p);
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
