import type { Reducer } from '../../../projection/reducer';
import { isoOf } from '../../../projection/reducer';
import type { Wire } from '../../../protocol';
import { ACTOR_TYPES, VERDICT_TYPES } from '../catalogue';
import { runIdOf } from '../ids';
import { runDecider } from '../kinds/run-decider';
import { initialRunState, type RunState } from '../kinds/run-state';

/**
 * One row per run (`writer_runs`), folded with the run decider's own
 * `evolve`, so D1 and the run's Durable Object agree: capabilities, canon
 * and its revision, every proposal with its status, who and which message
 * made each revision. Rebuilt from HCS like every read model.
 */
export interface WriterRunRow {
  [column: string]: string | number | null;
  run_id: string;
  stream_id: string;
  title: string;
  writer: string | null;
  /** JSON arrays of identities. */
  conductors: string;
  workers: string;
  revision: number;
  open_proposals: number;
  /** JSON: every proposal (status open, merged or declined). */
  proposals: string;
  /** JSON: who and which message made each revision, in order. */
  revisions: string;
  /** JSON: canon at `revision`. */
  document: string;
  messages: number;
  rejects: number;
  /** JSON: the fold's working state (the message awaiting its verdict). */
  pending: string | null;
  last_event_at: string;
  reducer_version: number;
  last_seq: number;
}

function stateOf(row: WriterRunRow): RunState {
  const base = initialRunState();
  if (row.writer === null) return base;
  return {
    ...base,
    run: {
      run_id: row.run_id,
      title: row.title,
      writer: row.writer,
      conductors: JSON.parse(row.conductors) as string[],
      workers: JSON.parse(row.workers) as string[],
      created_by: '',
      created_at: '',
    },
    revision: row.revision,
    doc: JSON.parse(row.document) as RunState['doc'],
    proposals: JSON.parse(row.proposals) as RunState['proposals'],
    history: JSON.parse(row.revisions) as RunState['history'],
    pending: row.pending === null ? null : (JSON.parse(row.pending) as RunState['pending']),
  };
}

export const writerRuns: Reducer<WriterRunRow> = {
  model: 'writer_runs',
  version: 1,
  key: 'run_id',
  columns: [
    'run_id',
    'stream_id',
    'title',
    'writer',
    'conductors',
    'workers',
    'revision',
    'open_proposals',
    'proposals',
    'revisions',
    'document',
    'messages',
    'rejects',
    'pending',
    'last_event_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['run'],
  initial(first: Wire): WriterRunRow {
    return {
      run_id: runIdOf(first.stream_id),
      stream_id: first.stream_id,
      title: '',
      writer: null,
      conductors: '[]',
      workers: '[]',
      revision: 0,
      open_proposals: 0,
      proposals: '{}',
      revisions: '[]',
      document: JSON.stringify(initialRunState().doc),
      messages: 0,
      rejects: 0,
      pending: null,
      last_event_at: isoOf(first.ts),
      reducer_version: 1,
      last_seq: 0,
    };
  },
  evolve(row, wire) {
    const state = runDecider.evolve(stateOf(row), wire, null);
    const run = state.run;
    return {
      ...row,
      title: run?.title ?? row.title,
      writer: run?.writer ?? null,
      conductors: JSON.stringify(run?.conductors ?? []),
      workers: JSON.stringify(run?.workers ?? []),
      revision: state.revision,
      open_proposals: Object.values(state.proposals).filter((p) => p.status === 'open').length,
      proposals: JSON.stringify(state.proposals),
      revisions: JSON.stringify(state.history),
      document: JSON.stringify(state.doc),
      messages: row.messages + (ACTOR_TYPES.has(wire.type) ? 1 : 0),
      rejects: row.rejects + (wire.type === VERDICT_TYPES.reject ? 1 : 0),
      pending: state.pending === null ? null : JSON.stringify(state.pending),
      last_event_at: isoOf(wire.ts),
    };
  },
};
