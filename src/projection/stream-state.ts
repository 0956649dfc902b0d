import type { Wire } from '../protocol';
import { isoOf, type Reducer, text, unhandled } from './reducer';

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
  /** JSON summary: `{counts, gates?, contracts?, artifacts?}`. */
  state: string;
  reducer_version: number;
  last_seq: number;
}

interface Summary {
  counts: Record<string, number>;
  gates?: Record<string, 'opened' | 'passed'>;
  contracts?: string[];
  artifacts?: string[];
}

/** Wire types that move a stream's status or summary beyond counting. */
const HANDLED = [
  'project.created',
  'project.complete',
  'task.available',
  'task.claim',
  'task.claimed',
  'task.started',
  'task.blocked',
  'task.complete',
  'task.released',
  'task.lease.expired',
  'task.lease.revoked',
  'agent.started',
  'agent.stopped',
  'gate.opened',
  'gate.passed',
  'contract.ready',
  'artifact.ready',
] as const;
type StreamEvent = (typeof HANDLED)[number];

function handles(type: string): type is StreamEvent {
  return (HANDLED as readonly string[]).includes(type);
}

function kindOf(streamId: string): string {
  return streamId.slice(0, streamId.indexOf(':'));
}

function initialStatus(kind: string): string {
  if (kind === 'task') return 'pending';
  if (kind === 'project') return 'active';
  if (kind === 'agent') return 'unknown';
  return 'open';
}

/** Summary JSON with keys in one fixed order, so equal states are equal text. */
function summaryJson(s: Summary): string {
  const counts: Record<string, number> = {};
  for (const key of Object.keys(s.counts).sort()) counts[key] = s.counts[key] ?? 0;
  return JSON.stringify({
    counts,
    ...(s.gates ? { gates: s.gates } : {}),
    ...(s.contracts ? { contracts: s.contracts } : {}),
    ...(s.artifacts ? { artifacts: s.artifacts } : {}),
  });
}

function addOnce(list: string[] | undefined, value: string | null): string[] | undefined {
  if (value === null) return list;
  const current = list ?? [];
  return current.includes(value) ? current : [...current, value];
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

  owns: () => true,

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
    const summary = JSON.parse(prev.state) as Summary;
    summary.counts[wire.type] = (summary.counts[wire.type] ?? 0) + 1;
    let status = prev.status;
    const type = wire.type;
    if (handles(type)) {
      const p = wire.payload;
      switch (type) {
        case 'project.created':
          status = 'active';
          break;
        case 'agent.started':
          status = 'running';
          break;
        case 'project.complete':
        case 'task.complete':
          status = 'complete';
          break;
        case 'task.available':
          status = 'available';
          break;
        case 'task.claim':
        case 'task.claimed':
          status = 'claimed';
          break;
        case 'task.started':
          status = 'started';
          break;
        case 'task.blocked':
          status = 'blocked';
          break;
        case 'task.released':
          status = 'released';
          break;
        case 'task.lease.expired':
          status = 'expired';
          break;
        case 'task.lease.revoked':
          status = 'revoked';
          break;
        case 'agent.stopped':
          status = 'stopped';
          break;
        case 'gate.opened':
        case 'gate.passed': {
          const gate = text(p, 'gate_id');
          if (gate !== null) {
            summary.gates = {
              ...summary.gates,
              [gate]: type === 'gate.passed' ? 'passed' : 'opened',
            };
          }
          break;
        }
        case 'contract.ready':
          summary.contracts = addOnce(summary.contracts, text(p, 'contract'));
          break;
        case 'artifact.ready':
          summary.artifacts = addOnce(summary.artifacts, text(p, 'artifact_ref'));
          break;
        default:
          unhandled(type);
      }
    }
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
