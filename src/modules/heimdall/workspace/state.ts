import type { Capsule } from './capsules';
import type { RoleTotals } from './ledger';

/** What the `workspace:<ws>` decider holds (./decider.ts), and the keys it files things under. */

export interface Versioned {
  value: string;
  by: string;
  at: string;
  forced?: boolean;
}

/**
 * Versions of one symbol or fact the state keeps. Every version is a Wire of
 * the workspace stream, so the state needs only the latest few: a fact set
 * every minute would otherwise outgrow the state's row within days.
 */
export const HISTORY_KEPT = 20;

/**
 * One version as the state keeps it: who set it and when, with its value left
 * in its Wire (`seq`, the Wire's stream_seq) and read back when a history is
 * served. The entry's own value is held once, so a key costs its value plus
 * ~60 bytes a version, not twenty copies of its value.
 */
export interface VersionRef {
  seq: number;
  by: string;
  at: string;
  forced?: boolean;
}

export interface SymbolEntry extends Versioned {
  /** The last HISTORY_KEPT versions, oldest first; the entry's own is the last. */
  history: VersionRef[];
  /** How many times it was set in all. */
  versions: number;
}

/**
 * A decisions-log entry as the state keeps it: its body stays in its
 * `decision.appended` Wire (`wire_seq`), read back when the log is served,
 * so a log of any length fits the state.
 */
export interface Decision {
  seq: number;
  title: string;
  haid: string;
  at: string;
  /** The stream_seq of the entry's Wire. */
  wire_seq: number;
}

export interface ConflictRecord {
  path: string;
  id: string;
  title: string;
  surfaces: string[];
  displaced_haid: string | null;
  overriding_intent: string | null;
  displaced_intent: string | null;
  haid: string;
  at: string;
  decision_seq: number;
}

export interface WorkspaceState {
  symbols: Record<string, SymbolEntry>;
  capsules: Record<string, Capsule>;
  blackboard: Record<string, SymbolEntry>;
  ledger: { totals: Record<string, RoleTotals>; baselines: Record<string, number> };
  decisions: Decision[];
  conflicts: Record<string, ConflictRecord>;
  messages: {
    accepted: number;
    by_type: Record<string, number>;
    /** Invalid attempts per `<haid> <msg_id>` since its last valid message. */
    rejects: Record<string, number>;
    escalations: number;
  };
  briefs: number;
  /** What the last Wires of a kind decided, for their receipts. */
  latest: { conflict: string | null; rejection: { wire_id: string; attempt: number } | null };
}

export function rejectKey(haid: string, msgId: string | null): string {
  return `${haid} ${msgId ?? '(no msg_id)'}`;
}

export function conflictPath(ts: string, id: string): string {
  return `conflicts/${ts.slice(0, 10)}-${id}.md`;
}
