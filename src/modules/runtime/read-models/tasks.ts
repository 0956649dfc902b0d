import type { Reducer } from '../../../projection/reducer';
import type { Wire } from '../../../protocol';
import { canonicalJson } from '../../../protocol/canonical-json';
import { type BranchState, evolveBranch, initialBranch } from '../kinds/branch';
import { evolveWorker, initialWorker, type WorkerState } from '../kinds/worker';
import { FOLDED_COLUMNS, foldedNext, foldedRow } from './folded';

/**
 * `runtime_tasks`: one row per worker (`worker:<id>`) and per branch
 * (`branch:<id>`), folded with their deciders' own evolve.
 */
export interface TaskRow {
  [column: string]: string | number | null;
  stream_id: string;
  task_id: string;
  kind: string;
  channel_id: string | null;
  branch_id: string | null;
  status: string;
  mode: string | null;
  goal: string | null;
  /** JSON: the worker's toolset, or []. */
  toolset: string;
  /** JSON: a worker's report or a branch's conclusion. */
  result: string | null;
  failure_reason: string | null;
  /** JSON: artifact refs the task returned. */
  artifact_refs: string;
  state: string;
  created_at: string;
  updated_at: string;
  reducer_version: number;
  last_seq: number;
}

type TaskState = WorkerState | BranchState;

function columnsOf(kind: string, state: TaskState) {
  if (kind === 'worker') {
    const w = state as WorkerState;
    return {
      channel_id: w.channelId,
      branch_id: w.branchId,
      status: w.status,
      mode: w.mode,
      goal: w.goal,
      toolset: canonicalJson(w.toolset),
      result: w.report === null ? null : canonicalJson(w.report),
      failure_reason: w.failure?.reason ?? null,
      artifact_refs: canonicalJson(w.artifactRefs),
    };
  }
  const b = state as BranchState;
  return {
    channel_id: b.channelId,
    branch_id: null,
    status: b.status,
    mode: null,
    goal: b.goal,
    toolset: '[]',
    result: b.conclusion === null ? null : canonicalJson(b.conclusion),
    failure_reason: null,
    artifact_refs: canonicalJson(b.conclusion?.artifactRefs ?? []),
  };
}

export const runtimeTasks: Reducer<TaskRow> = {
  model: 'runtime_tasks',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'task_id',
    'kind',
    'channel_id',
    'branch_id',
    'status',
    'mode',
    'goal',
    'toolset',
    'result',
    'failure_reason',
    'artifact_refs',
    ...FOLDED_COLUMNS,
  ],
  kinds: ['worker', 'branch'],
  initial(first: Wire): TaskRow {
    const kind = first.stream_id.slice(0, first.stream_id.indexOf(':'));
    const state = kind === 'worker' ? initialWorker() : initialBranch();
    const identity = {
      stream_id: first.stream_id,
      task_id: first.stream_id.slice(kind.length + 1),
      kind,
    };
    return foldedRow(first, identity, columnsOf(kind, state), state);
  },
  evolve(row, wire) {
    const before = JSON.parse(row.state);
    const state =
      row.kind === 'worker'
        ? evolveWorker(before as WorkerState, wire)
        : evolveBranch(before as BranchState, wire);
    return foldedNext(row, columnsOf(row.kind, state), state, wire);
  },
};
