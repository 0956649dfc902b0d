import { defineKind } from '../../../kernel/kind';
import { type CoordinationConfig, configOf } from '../config';
import { agentDecider } from './agent-decider';
import { type AgentState, agentView } from './agent-state';
import { type ProjectState, projectDecider } from './project-decider';
import { roleDecider } from './role-decider';
import { taskKind } from './task-kind';

/** Seed 000's stream kinds: `task:`, `agent:`, `project:` and `role:` streams. */
export const agentKind = defineKind<AgentState, CoordinationConfig>({
  name: 'agent',
  version: 5,
  config: configOf,
  decider: agentDecider,
  hooks: { view: (state, now, cfg) => agentView(state, now, cfg.agentStaleMs) },
});

export const projectKind = defineKind<ProjectState, CoordinationConfig>({
  name: 'project',
  version: 2,
  config: configOf,
  decider: projectDecider,
});

export const roleKind = defineKind<null, CoordinationConfig>({
  name: 'role',
  version: 2,
  config: configOf,
  decider: roleDecider,
});

export const KINDS = [taskKind, agentKind, projectKind, roleKind];
export { taskKind };
