import type { Reducer } from '../../../projection/reducer';
import { parseStreamId, type Wire } from '../../../protocol';
import { COORDINATION_TYPES, type TaskStatus } from '../catalogue';
import { projectOf } from '../kinds/task-state';
import { TASK_RUN_STATUSES } from './task-run-state';

/** A task stream's part of its project's progress: which project, and where the attempt is. */
export interface ProgressPart {
  [column: string]: string | number | null;
  stream_id: string;
  /** The project's id (`p1` for `project:p1`), from the offer; null: no project. */
  project_id: string | null;
  status: TaskStatus;
  reducer_version: number;
  last_seq: number;
}

/** One row of `project_progress`: a project's task attempts, by status. */
export type ProgressRow = { project_id: string; attempts: number } & Record<TaskStatus, number>;

/**
 * The Wire types that change a task attempt's status: those the catalogue
 * gives one (the decider's own table), plus the offer that names the project.
 */
const STATUS_TYPES = Object.keys(COORDINATION_TYPES).filter(
  (type) => type.startsWith('task.') && COORDINATION_TYPES[type]?.status !== undefined,
);

/**
 * `project_progress` (seed 000): per project, its task attempts by status,
 * summed across the project's task streams (`task:<id>:attempt:<n>`), one
 * attempt per stream as `GET /v1/tasks` lists them. Each task stream folds
 * its part — the project its offer named, its status by the catalogue —
 * and the generic layer keeps the sums exact (`Spanning`).
 */
export const projectProgress: Reducer<ProgressPart> = {
  model: 'project_progress',
  version: 1,
  key: 'stream_id',
  columns: ['stream_id', 'project_id', 'status', 'reducer_version', 'last_seq'],
  kinds: ['task'],
  canHandle: STATUS_TYPES,

  initial(first: Wire): ProgressPart {
    return {
      stream_id: first.stream_id,
      project_id: null,
      status: 'pending',
      reducer_version: 0,
      last_seq: 0,
    };
  },

  evolve(part: ProgressPart, wire: Wire): ProgressPart {
    const status = (COORDINATION_TYPES[wire.type]?.status as TaskStatus | undefined) ?? part.status;
    if (wire.type !== 'task.available') return { ...part, status };
    const project = projectOf(wire);
    const parsed = project === null ? null : parseStreamId(project);
    const id = parsed !== null && 'id' in parsed ? parsed.id : null;
    return { ...part, status, project_id: id };
  },

  spans: {
    key: 'project_id',
    sums: ['attempts', ...TASK_RUN_STATUSES],
    share: (part) =>
      part.project_id === null
        ? null
        : { key: part.project_id, add: { attempts: 1, [part.status]: 1 } },
  },
};
