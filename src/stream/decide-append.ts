import type { AppendResult } from '../kernel/kind';
import type { KindRunner } from '../kernel/kind-runner';
import type { Draft, Failure, Receipt } from '../protocol';
import { draftIdentity, fail } from '../protocol';
import { receiptOf, type WireLog } from './wire-log';

/**
 * The append decision, pure: given what the log holds, is this draft new, a
 * replay of a stored Wire, or refused?
 */
export interface AppendCommand {
  draft: Draft;
  /** `stream_seq` the body asked for (must be last_seq + 1). */
  expectedSeq: number | undefined;
  /** `If-Match: "<last stream_seq>"`: the last seq the caller saw. */
  ifMatchSeq: number | undefined;
}

export interface AppendState {
  lastSeq: number;
  existing: { receipt: Receipt; identity: string } | null;
}

export type AppendDecision =
  | { ok: true; kind: 'append' }
  | { ok: true; kind: 'replay'; receipt: Receipt }
  | Failure;

export function decideAppend(command: AppendCommand, state: AppendState): AppendDecision {
  const { draft } = command;
  // Idempotency comes first: a retry of a stored Wire gets its receipt even if
  // the stream has moved on since.
  if (state.existing) {
    if (state.existing.identity === draftIdentity(draft)) {
      return { ok: true, kind: 'replay', receipt: state.existing.receipt };
    }
    return fail(
      'wire-id-conflict',
      `wire_id "${draft.wire_id}" is already stored at stream_seq ${state.existing.receipt.stream_seq} with different content`,
      { extra: { stream_seq: state.existing.receipt.stream_seq } },
    );
  }
  if (command.ifMatchSeq !== undefined && command.ifMatchSeq !== state.lastSeq) {
    return fail(
      'stale-stream',
      `If-Match expected last stream_seq ${command.ifMatchSeq} but the stream is at ${state.lastSeq}`,
      { extra: { current_seq: state.lastSeq } },
    );
  }
  if (command.expectedSeq !== undefined && command.expectedSeq !== state.lastSeq + 1) {
    return fail(
      'stale-stream',
      `stream_seq ${command.expectedSeq} was requested but the next stream_seq is ${state.lastSeq + 1}`,
      { extra: { current_seq: state.lastSeq } },
    );
  }
  return { ok: true, kind: 'append' };
}

/** `decideAppend` against what `log` holds for the draft's wire_id (one lookup). */
export function decideWithLog(log: WireLog, command: AppendCommand): AppendDecision {
  const existing = log.findByWireId(command.draft.wire_id);
  return decideAppend(command, {
    lastSeq: log.lastSeq,
    existing: existing && {
      receipt: receiptOf(existing.wire, existing.wire.received_at),
      identity: existing.identity,
    },
  });
}

/**
 * The answer when the draft's wire_id may be stored: its replay (200, the
 * original receipt) or a 409 when stored with other content; else
 * `otherwise` (the refusal that prompted the look).
 */
export function storedOr(
  log: WireLog,
  kinds: Pick<KindRunner, 'replayed'>,
  command: AppendCommand,
  otherwise: Failure | null,
): AppendResult {
  const decision = decideWithLog(log, command);
  if (!decision.ok) return decision;
  if (decision.kind === 'replay') {
    const fields = kinds.replayed(command.draft);
    return { ok: true, status: 200, receipt: { ...decision.receipt, ...fields }, replay: true };
  }
  // Not stored after all (a refusal prompted the look): the refusal stands.
  return otherwise ?? fail('wire-id-conflict', `wire_id "${command.draft.wire_id}" is taken`);
}
