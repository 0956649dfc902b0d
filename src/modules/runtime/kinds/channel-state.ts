import { ownValue, withOwn } from '../../../kernel/records';
import type { Wire } from '../../../protocol';
import { memberOf, messageTypeOf } from '../envelope';
import { estimateTokens, type RoutePolicy, type TokenUsage } from '../payloads';
import { applySummary, levelOf, liveTokens, type Segment } from './compactor';
import { read, workerUpdate } from './read';

/** A channel's state: its policy, live context, and the branches and workers it knows. */
export interface ChannelState {
  opened: boolean;
  policy: RoutePolicy | null;
  contextBudget: number;
  segments: Segment[];
  liveTokens: number;
  utilization: number;
  /** The highest threshold level currently crossed (0–3): a level fires once per crossing. */
  level: number;
  messages: number;
  lastMessage: {
    messageId: string;
    seq: number;
    text: string;
    role: string;
    metadata?: Record<string, string | number | boolean> | undefined;
    traceId: string | null;
  } | null;
  lastDecision: { messageId: string; rule: string; action: string } | null;
  branches: Record<string, { status: 'spawned' | 'concluded' }>;
  workers: Record<string, { status: string; mode: string }>;
  thresholdHits: number;
  summariesApplied: number;
  lastBulletinId: string | null;
  tokenUsage: TokenUsage;
}

export function initialChannel(): ChannelState {
  return {
    opened: false,
    policy: null,
    contextBudget: 0,
    segments: [],
    liveTokens: 0,
    utilization: 0,
    level: 0,
    messages: 0,
    lastMessage: null,
    lastDecision: null,
    branches: {},
    workers: {},
    thresholdHits: 0,
    summariesApplied: 0,
    lastBulletinId: null,
    tokenUsage: { input: 0, output: 0 },
  };
}

function withSegments(state: ChannelState, segments: Segment[]): ChannelState {
  const live = liveTokens(segments);
  const utilization = state.contextBudget > 0 ? live / state.contextBudget : 0;
  return { ...state, segments, liveTokens: live, utilization };
}

function addUsage(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  return b ? { input: a.input + b.input, output: a.output + b.output } : a;
}

/** Folds one stored Wire into a channel's state (pure; the read model uses it too). */
export function evolveChannel(state: ChannelState, wire: Wire): ChannelState {
  const type = messageTypeOf(wire.type);
  const seq = wire.stream_seq;
  switch (type) {
    case 'channel.opened': {
      const p = read('channel.opened', wire.payload);
      if (!p) return state;
      return { ...state, opened: true, policy: p.policy, contextBudget: p.contextBudget };
    }
    case 'channel.message.received': {
      const p = read('channel.message.received', wire.payload);
      if (!p) return state;
      const tokens = p.tokens ?? estimateTokens(p.text);
      const next = withSegments(state, [...state.segments, { from: seq, to: seq, tokens }]);
      return {
        ...next,
        messages: state.messages + 1,
        tokenUsage: addUsage(state.tokenUsage, { input: tokens, output: 0 }),
        lastMessage: {
          messageId: wire.wire_id,
          seq,
          text: p.text,
          role: p.role,
          metadata: p.metadata,
          traceId: wire.correlation_id,
        },
      };
    }
    case 'channel.route.decided': {
      const p = read('channel.route.decided', wire.payload);
      if (!p) return state;
      const next = {
        ...state,
        lastDecision: { messageId: p.messageId, rule: p.rule, action: p.action },
      };
      if (p.action === 'spawn_branch' && p.branchId)
        next.branches = withOwn(state.branches, p.branchId, { status: 'spawned' });
      return next;
    }
    case 'branch.conclusion': {
      const p = read('branch.conclusion', wire.payload);
      if (!p) return state;
      const branchId = memberOf(wire.payload, 'branchId');
      const next = withSegments(state, [
        ...state.segments,
        { from: seq, to: seq, tokens: estimateTokens(p.conclusion) },
      ]);
      return {
        ...next,
        branches: branchId
          ? withOwn(state.branches, branchId, { status: 'concluded' })
          : state.branches,
        tokenUsage: addUsage(state.tokenUsage, p.tokenUsage),
      };
    }
    case 'compactor.threshold.hit': {
      const level = ['soft', 'aggressive', 'emergency'].indexOf(String(wire.payload.level)) + 1;
      return {
        ...state,
        level: Math.max(state.level, level),
        thresholdHits: state.thresholdHits + 1,
      };
    }
    case 'compactor.summary.applied': {
      const p = read('compactor.summary.applied', wire.payload);
      if (!p) return state;
      const tokens = p.summaryTokens ?? estimateTokens(p.summary);
      const next = withSegments(state, applySummary(state.segments, p.fromSeq, p.toSeq, tokens));
      // Re-armed: a level below the new utilization fires again on the next crossing.
      return {
        ...next,
        level: levelOf(next.utilization),
        summariesApplied: state.summariesApplied + 1,
      };
    }
    case 'visor.bulletin.generated': {
      const p = read('visor.bulletin.generated', wire.payload);
      if (!p) return state;
      const next = withSegments(state, [
        ...state.segments,
        { from: seq, to: seq, tokens: estimateTokens(p.digest) },
      ]);
      return { ...next, lastBulletinId: p.bulletinId };
    }
    default: {
      const update = workerUpdate(type, wire.payload);
      if (!update) return state;
      const known = ownValue(state.workers, update.workerId);
      const mode =
        type === 'worker.spawned'
          ? String(wire.payload.mode ?? 'fire_and_forget')
          : (known?.mode ?? 'fire_and_forget');
      const usage = wire.payload.tokenUsage as TokenUsage | undefined;
      return {
        ...state,
        workers: withOwn(state.workers, update.workerId, { status: update.status, mode }),
        tokenUsage:
          type === 'worker.progress' ? state.tokenUsage : addUsage(state.tokenUsage, usage),
      };
    }
  }
}
