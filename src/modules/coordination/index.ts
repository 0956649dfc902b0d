import { Hono } from 'hono';
import type { AppEnv } from '../../api/app-env';
import type { ProtocolModule } from '../../kernel/module';
import type { Reducer } from '../../projection/reducer';
import type { BaseRow } from '../../projection/types';
import { COORDINATION_DERIVED_IDS, COORDINATION_PREFIXES, COORDINATION_TYPES } from './catalogue';
import { KINDS } from './kinds';
import { COORDINATION_TOOLS } from './mcp';
import { COORDINATION_OPERATIONS } from './openapi';
import { COORDINATION_PROBLEMS } from './problems';
import { agentRuntimeState } from './read-models/agent-runtime-state';
import { projectProgress } from './read-models/project-progress';
import { taskRunState } from './read-models/task-run-state';
import { readAgents } from './routes/read-agents';
import { readProjects } from './routes/read-projects';
import { readTasks } from './routes/read-tasks';
import { roleFeeds } from './routes/role-feeds';

const routes = new Hono<AppEnv>();
routes.route('/', roleFeeds);
routes.route('/', readTasks);
routes.route('/', readAgents);
routes.route('/', readProjects);

/**
 * Seed 000's coordination (the HCS Streaming Wire Protocol): task attempts
 * with claims, fenced leases and capacity, agents, projects with dependencies
 * and early release, role feeds; the task and agent read models; `/v1/roles`,
 * `/v1/tasks`, `/v1/agents`, `/v1/projects/{project_id}/progress`.
 */
export const coordination: ProtocolModule = {
  name: 'coordination',
  kinds: KINDS,
  types: COORDINATION_TYPES,
  typePrefixes: COORDINATION_PREFIXES,
  derivedIds: COORDINATION_DERIVED_IDS,
  problems: COORDINATION_PROBLEMS,
  readModels: [
    taskRunState as unknown as Reducer<BaseRow>,
    agentRuntimeState as unknown as Reducer<BaseRow>,
    projectProgress as unknown as Reducer<BaseRow>,
  ],
  initialStatus: { task: 'pending', project: 'active', agent: 'unknown' },
  routes,
  operations: COORDINATION_OPERATIONS,
  mcpTools: COORDINATION_TOOLS,
};
