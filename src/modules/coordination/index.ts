import { defineModule } from '../../kernel/module';
import { COORDINATION_DERIVED_IDS, COORDINATION_PREFIXES, COORDINATION_TYPES } from './catalogue';
import { KINDS } from './kinds';
import { agentSigners } from './kinds/agent-keys';
import { COORDINATION_PROBLEMS } from './problems';
import { agentRuntimeState } from './read-models/agent-runtime-state';
import { projectProgress } from './read-models/project-progress';
import { taskRunState } from './read-models/task-run-state';
import { readAgents } from './routes/read-agents';
import { readProjects } from './routes/read-projects';
import { readTasks } from './routes/read-tasks';
import { roleFeeds } from './routes/role-feeds';

/**
 * Seed 000's coordination (the HCS Streaming Wire Protocol): task attempts
 * with claims, fenced leases and capacity, agents, projects with dependencies
 * and early release, role feeds; the task and agent read models; `/v1/roles`,
 * `/v1/tasks`, `/v1/agents`, `/v1/projects/{project_id}/progress`.
 */
export const coordination = defineModule({
  name: 'coordination',
  kinds: KINDS,
  types: COORDINATION_TYPES,
  typePrefixes: COORDINATION_PREFIXES,
  derivedIds: COORDINATION_DERIVED_IDS,
  problems: COORDINATION_PROBLEMS,
  readModels: [taskRunState, agentRuntimeState, projectProgress],
  initialStatus: { task: 'pending', project: 'active', agent: 'unknown' },
  routes: [roleFeeds, readTasks, readAgents, readProjects],
  signers: agentSigners,
});
