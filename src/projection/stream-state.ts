import type { StreamSummary } from '../kernel/module';
import { REGISTRY } from '../modules';
import type { Wire } from '../protocol';
import { isoOf, type Reducer } from './reducer';

/** One row per stream (seed 000, stream_state). */
export interface StreamStateRow {
  [column: string]: string | number | null;
  stream_id: string;
  /** The stream id's kind: task, project, phase, agent, artifact or another prefix. */
  stream_type: string;
  status: string;
  last_wire_id: string;
  last_event_type: string;
  last_event_at: string;
  first_event_at: string;
  correlation_id: string | null;
  wire_count: number;
  /** JSON summary: `{counts, …}` plus what the modules' types add (seed 000: gates, contracts, artifacts). */
  state: string;
  reducer_version: number;
  last_seq: number;
}

function kindOf(streamId: string): string {
  return streamId.slice(0, streamId.indexOf(':'));
}

/** A new stream's status: what its kind's module declares, else `open`. */
function initialStatus(kind: string): string {
  return REGISTRY.initialStatus(kind) ?? 'open';
}

/**
 * Summary JSON with `counts` first and its keys sorted, so equal states are
 * equal text; what the types add follows in the order it was first added.
 */
function summaryJson(s: StreamSummary): string {
  const counts: Record<string, number> = {};
  for (const key of Object.keys(s.counts).sort()) counts[key] = s.counts[key] ?? 0;
  const { counts: _unsorted, ...added } = s;
  return JSON.stringify({ counts, ...added });
}

export const streamState: Reducer<StreamStateRow> = {
  model: 'stream_state',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'stream_type',
    'status',
    'last_wire_id',
    'last_event_type',
    'last_event_at',
    'first_event_at',
    'correlation_id',
    'wire_count',
    'state',
    'reducer_version',
    'last_seq',
  ],

  initial(first: Wire): StreamStateRow {
    const kind = kindOf(first.stream_id);
    return {
      stream_id: first.stream_id,
      stream_type: kind,
      status: initialStatus(kind),
      last_wire_id: first.wire_id,
      last_event_type: first.type,
      last_event_at: isoOf(first.ts),
      first_event_at: isoOf(first.ts),
      correlation_id: null,
      wire_count: 0,
      state: summaryJson({ counts: {} }),
      reducer_version: 0,
      last_seq: 0,
    };
  },

  evolve(prev: StreamStateRow, wire: Wire): StreamStateRow {
    let summary = JSON.parse(prev.state) as StreamSummary;
    summary.counts[wire.type] = (summary.counts[wire.type] ?? 0) + 1;
    // What the type means for its stream comes from the modules' catalogues.
    const spec = REGISTRY.typeSpec(wire.type);
    const status = spec?.status ?? prev.status;
    if (spec?.summarize) summary = spec.summarize(summary, wire.payload);
    return {
      ...prev,
      status,
      last_wire_id: wire.wire_id,
      last_event_type: wire.type,
      last_event_at: isoOf(wire.ts),
      correlation_id: prev.correlation_id ?? wire.correlation_id,
      wire_count: prev.wire_count + 1,
      state: summaryJson(summary),
    };
  },
};
