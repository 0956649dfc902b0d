import type { Capsule } from './capsules';
import type { RoleTotals } from './ledger';

/** What the `workspace:<ws>` decider holds (./decider.ts), and the keys it files things under. */

export interface Versioned {
  value: string;
  by: string;
  at: string;
  forced?: boolean;
}

export interface SymbolEntry extends Versioned {
  history: Versioned[];
}

export interface Decision {
  seq: number;
  title: string;
  body: string;
  haid: string;
  at: string;
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
