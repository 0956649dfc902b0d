import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../../../api/app-env';
import { problem } from '../../../api/problem';
import { listPage } from '../../../api/routes/read-page';
import {
  answer,
  Freshness,
  Name,
  oneQuery,
  Paging,
  Where,
  withJson,
} from '../../../api/routes/read-support';
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
    where: (q) =>
      new Where()
        .eq('status', q.status)
        .eq('role', q.role)
        .eq('claimed_by', q.claimed_by)
        .eq('correlation_id', q.correlation_id)
        .streams('stream_id', c),
    item: taskJson,
  }),
);

readTasks.get('/tasks/:task_id', async (c) => {
  const one = oneQuery(c, 'task_id');
  if (!one.ok) return problem(c, one);
  const taskId = one.id;
  const where = new Where().eq('task_id', taskId).streams('stream_id', c);
  const stmt = c.env.DB.prepare(`SELECT * FROM task_run_state ${where.sql} ORDER BY attempt`).bind(
    ...where.params,
  );
  return answer(
    c,
    one.query,
    [stmt],
    ([rows = []]) => {
      if (rows.length === 0)
        return fail('not-found', `no attempt of task "${taskId}" is projected`);
      const attempts = rows.map(taskJson);
      return { ok: true, body: { task_id: taskId, current: attempts.at(-1), attempts } };
    },
    taskStreamId(taskId, 1),
  );
});
