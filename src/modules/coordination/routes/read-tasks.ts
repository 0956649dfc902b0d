import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  Freshness,
  listPage,
  Name,
  Paging,
  readOne,
  withJson,
} from '../../../api/module-kit';
import { fail, taskStreamId } from '../../../protocol';
import { TASK_RUN_STATUSES } from '../read-models/task-run-state';

/** `GET /v1/tasks` and `GET /v1/tasks/{task_id}`: task attempts from D1 (task_run_state). */
export const readTasks = new Hono<AppEnv>();

const Status = z.enum(TASK_RUN_STATUSES);
const JSON_COLUMNS = ['artifacts', 'contracts'];

function taskJson(row: Record<string, unknown>) {
  const { reducer_version: _v, ...rest } = withJson(row, JSON_COLUMNS);
  return rest;
}

/** `GET /v1/tasks` */
export const TasksQuery = {
  status: Status.optional(),
  role: Name.optional(),
  claimed_by: Name.optional(),
  correlation_id: Name.optional(),
  ...Paging,
  ...Freshness,
};

readTasks.get('/tasks', (c) =>
  listPage(c, TasksQuery, {
    table: 'task_run_state',
    keys: ['task_id', 'attempt'],
    list: 'tasks',
    equal: {
      status: 'status',
      role: 'role',
      claimed_by: 'claimed_by',
      correlation_id: 'correlation_id',
    },
    item: taskJson,
  }),
);

readTasks.get('/tasks/:task_id', (c) =>
  readOne(c, 'task_id', {
    table: 'task_run_state',
    column: 'task_id',
    orderBy: 'attempt',
    build(rows, taskId) {
      if (rows.length === 0)
        return fail('not-found', `no attempt of task "${taskId}" is projected`);
      const attempts = rows.map(taskJson);
      return { ok: true, body: { task_id: taskId, current: attempts.at(-1), attempts } };
    },
    streamOf: (taskId) => taskStreamId(taskId, 1),
  }),
);
