import * as z from 'zod';
import { Freshness, Name, type QueryShape } from '../../api/module-kit';
import {
  AUTH,
  Cursor,
  followOperation,
  type Operation,
  readOperation,
  readScoped,
  Seq,
  ServedWire,
  StreamIdParam,
} from '../../api/openapi-kit';
import { TASK_RUN_STATUSES } from './read-models/task-run-state';
import { AgentsQuery } from './routes/read-agents';
import { TasksQuery } from './routes/read-tasks';
import { RoleFeedQuery, RoleFollowQuery } from './routes/role-feeds';

/**
 * Seed 000's routes as the OpenAPI document describes them (the module's
 * `operations`): requests from the schemas its routes validate with,
 * answers below. test/workers/api-contract.test.ts calls each one.
 */

const CoordinationView = z.object({
  stream_id: z.string(),
  kind: z.string().nullable(),
  state: z.unknown().meta({ description: "The decider's state for this stream kind" }),
  outbox: Seq.meta({ description: 'Effects not yet delivered to other streams' }),
});

const RoleFeedPage = z.object({
  role: z.string(),
  stream_id: z.string(),
  wires: z.array(ServedWire),
  last_seq: Seq,
  next_after_seq: Seq.nullable().meta({ description: 'Pass as `after_seq`; null: caught up' }),
  next_after: Seq.nullable().meta({
    description: 'Older name of `next_after_seq`',
    deprecated: true,
  }),
});

const TaskAttempt = z.looseObject({
  task_id: z.string(),
  attempt: z.int(),
  status: z.enum(TASK_RUN_STATUSES),
  stream_id: z.string(),
});

const TaskList = z.object({ tasks: z.array(TaskAttempt), next_cursor: Cursor });
const TaskDetail = z.object({
  task_id: z.string(),
  current: TaskAttempt,
  attempts: z.array(TaskAttempt),
});

const ProjectProgress = z.object({
  project_id: z.string(),
  stream_id: z.string(),
  attempts: z
    .int()
    .meta({ description: 'Task attempts offered in the project (one per task stream)' }),
  statuses: z
    .object(Object.fromEntries(TASK_RUN_STATUSES.map((s) => [s, z.int()])))
    .meta({ description: 'Those attempts by status, as `GET /v1/tasks` shows them' }),
});

const Agent = z.looseObject({
  agent_id: z.string(),
  stream_id: z.string(),
  status: z.string(),
  stale: z.boolean().meta({ description: 'No Wire of its own within AGENT_STALE_SECONDS' }),
});
const AgentList = z.object({ agents: z.array(Agent), next_cursor: Cursor });

/** A read's summary, then its answer's description and schema. */
type Read = [summary: string, description: string, schema: z.ZodType];

/**
 * A read model's two reads: `GET /v1/<kind>s` (a page, filtered by `query`)
 * and `GET /v1/<kind>s/{<kind>_id}` (one, `wait_for` allowed).
 */
function listAndOne(
  kind: 'task' | 'agent',
  query: QueryShape,
  reads: { list: Read; one: Read },
): Operation[] {
  const Kind = `${kind[0]?.toUpperCase()}${kind.slice(1)}`;
  const [listSummary, ...page] = reads.list;
  const [oneSummary, ...one] = reads.one;
  return [
    readOperation({
      path: `/v1/${kind}s`,
      operationId: `list${Kind}s`,
      summary: listSummary,
      query,
      answer: page,
    }),
    readOperation({
      path: `/v1/${kind}s/{${kind}_id}`,
      operationId: `get${Kind}`,
      summary: oneSummary,
      pathParams: { [`${kind}_id`]: Name },
      query: Freshness,
      answer: one,
    }),
  ];
}

export const COORDINATION_OPERATIONS: Operation[] = [
  ...listAndOne('task', TasksQuery, {
    list: ['Task attempts (D1 read model task_run_state)', 'A page of task attempts', TaskList],
    one: ['Every attempt of one task, current last', 'The task', TaskDetail],
  }),
  readOperation({
    path: '/v1/projects/{project_id}/progress',
    operationId: 'getProjectProgress',
    summary:
      "A project's task attempts by status (D1 read model project_progress, across its task streams)",
    pathParams: { project_id: Name.meta({ description: '`p1` or `project:p1`' }) },
    query: Freshness,
    answer: ['The counts', ProjectProgress],
  }),
  ...listAndOne('agent', AgentsQuery, {
    list: ['Agents (D1 read model agent_runtime_state)', 'A page of agents', AgentList],
    one: ['One agent (`quinn-07` or `agent:quinn-07`)', 'The agent', Agent],
  }),
  readScoped('Coordination', {
    path: '/v1/roles/{role}/wires',
    operationId: 'readRoleFeed',
    summary: "Page through a role's feed of task offers (`role:<role>`)",
    description:
      'The stream `role:<role>`: every `task.available` for the role, copied there by the task streams. Pages like a stream: `after_seq` in, `next_after_seq` out (`after` / `next_after` are the older names, still served).',
    pathParams: { role: Name.meta({ description: 'A role such as `developer`' }) },
    query: RoleFeedQuery,
    answer: { description: 'A page', schema: RoleFeedPage, headers: ['ETag'] },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query'],
  }),
  followOperation(
    {
      path: '/v1/roles/{role}/ws',
      operationId: 'followRoleFeed',
      tag: 'Coordination',
      summary: "Follow a role's feed live over WebSocket",
    },
    { role: Name },
    RoleFollowQuery,
  ),
  readScoped('Coordination', {
    path: '/v1/coordination/{stream_id}',
    operationId: 'coordinationState',
    summary: "What a stream's decider holds (lease, capacity, health, dependencies)",
    pathParams: { stream_id: StreamIdParam },
    answer: { description: 'The decision state', schema: CoordinationView },
    problems: [...AUTH, 'invalid-stream-id'],
  }),
];
