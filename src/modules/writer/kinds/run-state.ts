import type { Keyed } from '../../../kernel/records';
import type { RunDocument, SectionChange } from '../document';
import type { PatchOp } from '../payloads';

/**
 * What the run's Durable Object holds between messages: who holds which
 * capability, canon and its revision, every proposal, the verdict given to
 * every message (so a retry hears the same answer), and who made each
 * revision. The run stream's Wires fold into it (`run-decider.ts#evolve`).
 */
export interface RunInfo {
  run_id: string;
  title: string;
  writer: string;
  conductors: string[];
  workers: string[];
  created_by: string;
  created_at: string;
}

export type Role = 'writer' | 'conductor' | 'worker' | 'human';

export type ProposalStatus = 'open' | 'merged' | 'declined';

export interface Proposal {
  proposal_id: string;
  type: SectionChange['type'];
  section: string;
  sender: string;
  role: Role;
  source_worker_id: string | null;
  /** The canon revision it was made against. */
  base_revision: number;
  status: ProposalStatus;
  merged_revision: number | null;
  decline_reason: string | null;
  change: SectionChange;
  at: string;
}

export type Verdict =
  | {
      verdict: 'WriterAck';
      revision: number;
      outcome: 'canon' | 'proposal' | 'merged' | 'declined' | 'delivered';
      proposal_id: string | null;
    }
  | { verdict: 'WriterReject'; revision: number; reason: string };

/** Who and which message made a revision. */
export interface RevisionEntry {
  revision: number;
  message_id: string;
  message_type: string;
  sender: string;
  /** The worker whose content it carries (a merged proposal's author, or as the writer named). */
  source_worker_id: string | null;
  proposal_id: string | null;
  section: string;
  at: string;
}

/** The history entry of `revision`, made by the `pending` message and acknowledged at `at`. */
export function historyEntry(
  revision: number,
  pending: Pending,
  at: string,
  made: Pick<RevisionEntry, 'source_worker_id' | 'proposal_id' | 'section'>,
): RevisionEntry {
  return {
    revision,
    message_id: pending.message_id,
    message_type: pending.type,
    sender: pending.sender,
    ...made,
    at,
  };
}

/** The actor message waiting for its verdict (always the next Wire). */
export interface Pending {
  message_id: string;
  type: string;
  sender: string;
  ts: string;
  payload: Record<string, unknown>;
}

export interface RunState {
  run: RunInfo | null;
  revision: number;
  doc: RunDocument;
  /** Keyed by proposal id and message id, names senders choose: read and write through `kernel/records`. */
  proposals: Keyed<Proposal>;
  verdicts: Keyed<Verdict>;
  history: RevisionEntry[];
  pending: Pending | null;
  /** The message the last verdict answered (the verdict Wire's receipt reads it). */
  answered: string | null;
}

export function initialRunState(): RunState {
  return {
    run: null,
    revision: 0,
    doc: { title: '', order: [], sections: {} },
    proposals: {},
    verdicts: {},
    history: [],
    pending: null,
    answered: null,
  };
}

/** The capability `sender` holds in the run, or null when it is no party to it. */
export function roleOf(run: RunInfo, sender: string): Role | null {
  if (sender === run.writer) return 'writer';
  if (run.conductors.includes(sender)) return 'conductor';
  if (run.workers.includes(sender)) return 'worker';
  if (sender.startsWith('human:')) return 'human';
  return null;
}

/** The section change an actor message carries, if it is one. */
export function changeOf(type: string, payload: Record<string, unknown>): SectionChange | null {
  const section = String(payload.section ?? '');
  switch (type) {
    case 'writer.apply_patch':
      return { type, section, ops: payload.ops as PatchOp[] };
    case 'writer.append_note':
      return { type, section, markdown: String(payload.markdown ?? '') };
    case 'writer.mark_section_state':
      return { type, section, state: String(payload.state ?? '') };
    default:
      return null;
  }
}
