import { ownValue } from '../../kernel/records';

/**
 * Seed 004's event handlers. A project's `event_handlers` map (its
 * `.planning/config.json`) names, per colon event type, the handlers that run,
 * in order; a type the map does not name runs the seed's built-in table. The
 * built-ins' effects are folds of the project's log (so each runs exactly
 * once per event, and a rebuild from HCS reproduces them), except the
 * dependency resolver, whose `dependency:satisfied` Wires the decider appends
 * in the same synchronous stretch as the event that caused them.
 */
export type EventHandlers = Readonly<Record<string, readonly string[]>>;

export const BUILTINS = {
  blackboardSync: 'builtin:blackboard-sync',
  dependencyResolver: 'builtin:dependency-resolver',
  decisionTracker: 'builtin:decision-tracker',
  errorHandler: 'builtin:error-handler',
  orchestrator: 'builtin:orchestrator',
} as const;

/** The seed's table ("Built-in Handlers"), plus the resolver on the events that can satisfy a wait. */
export const DEFAULT_HANDLERS: EventHandlers = {
  'task:completed': [BUILTINS.blackboardSync],
  'artifact:created': [BUILTINS.dependencyResolver],
  'artifact:modified': [BUILTINS.dependencyResolver],
  'plan:waiting': [BUILTINS.dependencyResolver],
  'decision:made': [BUILTINS.decisionTracker],
  'checkpoint:reached': [BUILTINS.orchestrator],
  'task:failed': [BUILTINS.errorHandler],
};

/** The handlers that run for `type` under the project's map. */
export function handlersFor(configured: EventHandlers | null, type: string): readonly string[] {
  return (configured && ownValue(configured, type)) ?? ownValue(DEFAULT_HANDLERS, type) ?? [];
}

export function runs(configured: EventHandlers | null, type: string, handler: string): boolean {
  return handlersFor(configured, type).includes(handler);
}
