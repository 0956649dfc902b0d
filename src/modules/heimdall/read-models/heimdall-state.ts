import type { Reducer } from '../../../projection/reducer';
import type { Wire } from '../../../protocol';
import { workspaceOf } from '../identity';
import { surfacesDecider } from '../surfaces/decider';
import { workspaceDecider } from '../workspace/decider';

/**
 * One row per heimdall stream (`workspace:<ws>` and `surfaces:<ws>`): the
 * decider's state folded with the decider's own `evolve`, as JSON, so the
 * row and the stream's decision state agree by construction, and a replay
 * from HCS (the rebuild) reproduces the workspace and its claims exactly.
 */
export interface HeimdallStateRow {
  [column: string]: string | number | null;
  stream_id: string;
  workspace: string;
  kind: string;
  /** JSON: the decider's state after `last_seq`. */
  state: string;
  wire_count: number;
  last_event_at: string;
  reducer_version: number;
  last_seq: number;
}

const DECIDERS = { workspace: workspaceDecider, surfaces: surfacesDecider } as const;

function kindOf(streamId: string): keyof typeof DECIDERS {
  return streamId.startsWith('surfaces:') ? 'surfaces' : 'workspace';
}

export const heimdallState: Reducer<HeimdallStateRow> = {
  model: 'heimdall_state',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'workspace',
    'kind',
    'state',
    'wire_count',
    'last_event_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['workspace', 'surfaces'],
  initial(first: Wire): HeimdallStateRow {
    const kind = kindOf(first.stream_id);
    return {
      stream_id: first.stream_id,
      workspace: workspaceOf(first.stream_id),
      kind,
      state: JSON.stringify(DECIDERS[kind].initialState()),
      wire_count: 0,
      last_event_at: first.ts,
      reducer_version: 1,
      last_seq: 0,
    };
  },
  evolve(row, wire) {
    const decider = DECIDERS[kindOf(row.stream_id)] as typeof workspaceDecider;
    const state = decider.evolve(JSON.parse(row.state), wire, null);
    return {
      ...row,
      state: JSON.stringify(state),
      wire_count: row.wire_count + 1,
      last_event_at: wire.ts,
    };
  },
};
