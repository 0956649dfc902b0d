import type { EventHandlers } from '../handlers';

/** A plan's dependencies: what it waits on, and which artifact satisfied each. */
export interface PlanDeps {
  waitsOn: string[];
  /** requirement → the artifact path that satisfied it, and the event id that did. */
  satisfied: Record<string, { artifact: string; eventId: number }>;
}

export interface Claim {
  path: string;
  holder: string;
  plan: string | null;
  eventId: number;
  /** The surface claim the gate holds for it (`/v1/workspaces/{project_id}/claims`). */
  claimId: string | null;
}

export interface Checkpoint {
  plan: string;
  task: string | number;
  checkpointType: string | null;
  awaiting: string | null;
  status: 'awaiting' | 'approved' | 'rejected';
  eventId: number;
  answeredBy: string | null;
  answerEventId: number | null;
  comment: string | null;
}

/** The decision state of one GSD project (`gsd:<project_id>`): a fold of its events. */
export interface GsdState {
  /** Event id (stream_seq) of the last event folded in. */
  lastEventId: number;
  plans: Record<string, PlanDeps>;
  /** Artifact paths and provided names seen so far → the path that provided them. */
  provided: Record<string, string>;
  claims: Record<string, Claim>;
  checkpoints: Record<string, Checkpoint>;
  /**
   * `builtin:decision-tracker`: the decision log (decisions.json), oldest
   * first, as `{madeBy, eventId}`: each event stays in its Wire and is read
   * back when the log is served (`routes/state.ts`), so a log of any length
   * fits the state.
   */
  decisions: Record<string, unknown>[];
  /** `builtin:blackboard-sync`: shared-context.json, by plan then task. */
  sharedContext: Record<string, Record<string, Record<string, unknown>>>;
  /** `builtin:error-handler`: failed tasks, logged and raised, as `{agent, eventId}` (as `decisions`). */
  alerts: Record<string, unknown>[];
  /** The project's `event_handlers` map, verbatim; null: the seed's defaults. */
  handlers: EventHandlers | null;
  retentionPolicy: string;
}

export const DEFAULT_RETENTION = '24h';

export function initialState(): GsdState {
  return {
    lastEventId: 0,
    plans: {},
    provided: {},
    claims: {},
    checkpoints: {},
    decisions: [],
    sharedContext: {},
    alerts: [],
    handlers: null,
    retentionPolicy: DEFAULT_RETENTION,
  };
}

export function checkpointKey(plan: string, task: string | number): string {
  return `${plan}#${task}`;
}

/** Milliseconds of a retention policy (`24h`, `7d`, `90m`). */
export function retentionMs(policy: string): number {
  const amount = Number(policy.slice(0, -1));
  const unit = policy.at(-1);
  const per = unit === 'd' ? 86_400_000 : unit === 'h' ? 3_600_000 : 60_000;
  return amount * per;
}
