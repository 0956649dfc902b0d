import type { Reducer } from '../../../projection/reducer';
import type { Wire } from '../../../protocol';
import { type ChannelState, evolveChannel, initialChannel } from '../kinds/channel-state';
import { FOLDED_COLUMNS, foldedNext, foldedRow } from './folded';

/** `runtime_channels`: one row per `channel:<id>`, folded with the channel decider's own evolve. */
export interface ChannelRow {
  [column: string]: string | number | null;
  stream_id: string;
  channel_id: string;
  status: string;
  context_budget: number;
  live_tokens: number;
  utilization: number;
  level: number;
  messages: number;
  active_workers: number;
  open_branches: number;
  threshold_hits: number;
  summaries_applied: number;
  last_bulletin_id: string | null;
  /** JSON: the channel's state (policy, live-context segments, workers, branches). */
  state: string;
  created_at: string;
  updated_at: string;
  reducer_version: number;
  last_seq: number;
}

export function columnsOf(state: ChannelState) {
  const workers = Object.values(state.workers);
  return {
    status: state.opened ? 'active' : 'pending',
    context_budget: state.contextBudget,
    live_tokens: state.liveTokens,
    utilization: Math.round(state.utilization * 10_000) / 10_000,
    level: state.level,
    messages: state.messages,
    active_workers: workers.filter((w) => w.status !== 'completed' && w.status !== 'failed').length,
    open_branches: Object.values(state.branches).filter((b) => b.status === 'spawned').length,
    threshold_hits: state.thresholdHits,
    summaries_applied: state.summariesApplied,
    last_bulletin_id: state.lastBulletinId,
  };
}

export const runtimeChannels: Reducer<ChannelRow> = {
  model: 'runtime_channels',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'channel_id',
    'status',
    'context_budget',
    'live_tokens',
    'utilization',
    'level',
    'messages',
    'active_workers',
    'open_branches',
    'threshold_hits',
    'summaries_applied',
    'last_bulletin_id',
    ...FOLDED_COLUMNS,
  ],
  kinds: ['channel'],
  initial(first: Wire): ChannelRow {
    const state = initialChannel();
    const identity = {
      stream_id: first.stream_id,
      channel_id: first.stream_id.slice('channel:'.length),
    };
    return foldedRow(first, identity, columnsOf(state), state);
  },
  evolve(row, wire) {
    const state = evolveChannel(JSON.parse(row.state) as ChannelState, wire);
    return foldedNext(row, columnsOf(state), state, wire);
  },
};
