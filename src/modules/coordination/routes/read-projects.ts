import { Hono } from 'hono';
import { type AppEnv, answer, mayTouchStream, oneQuery, problem } from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { TASK_RUN_STATUSES } from '../read-models/task-run-state';

/** `GET /v1/projects/{project_id}/progress`: a project's task attempts by status (project_progress). */
export const readProjects = new Hono<AppEnv>();

readProjects.get('/projects/:project_id/progress', async (c) => {
  const one = oneQuery(c, 'project_id');
  if (!one.ok) return problem(c, one);
  const raw = one.id;
  // Accept both "p1" and its stream id "project:p1".
  const bare = raw.startsWith('project:') ? raw.slice('project:'.length) : raw;
  const streamId = `project:${bare}`;
  const principal = c.get('principal');
  const stmt = c.env.DB.prepare('SELECT * FROM project_progress WHERE project_id = ?1').bind(bare);
  return answer(c, one.query, [stmt], ([rows = []]) => {
    const row = rows[0];
    // A project outside the token's stream prefixes reads as absent.
    if (!row || (principal && !mayTouchStream(principal, streamId))) {
      return fail('not-found', `project "${bare}" has no task offered in it yet`);
    }
    const statuses = Object.fromEntries(TASK_RUN_STATUSES.map((s) => [s, Number(row[s] ?? 0)]));
    return {
      ok: true,
      body: { project_id: bare, stream_id: streamId, attempts: Number(row.attempts), statuses },
    };
  });
});
