import { derivedWireId } from '../../../kernel/derived-id';
import { ownValue } from '../../../kernel/records';
import type { Draft, Payload, Wire } from '../../../protocol';
import { ACTOR_MESSAGES, SECTION_CHANGES, VERDICT_TYPES } from '../catalogue';
import { applyChange, missingSection } from '../document';
import { runIdOf } from '../ids';
import { changeOf, type Role, type RunState, type Verdict } from './run-state';

/**
 * The verdict a run gives an actor message from one of its parties, and the
 * `writer.ack` / `writer.reject` Wire that carries it (./run-decider.ts
 * appends it together with the message).
 */

type Judged =
  | { ok: true; ack: Extract<Verdict, { verdict: 'WriterAck' }> }
  | { ok: false; reason: string };

const CONDUCTOR_REFUSAL =
  'the conductor holds no mutation capability: it orchestrates only (send a ConductorRequest); document changes go through the writer';

function ack(
  revision: number,
  outcome: Extract<Verdict, { verdict: 'WriterAck' }>['outcome'],
  proposalId: string | null = null,
): Judged {
  return { ok: true, ack: { verdict: 'WriterAck', revision, outcome, proposal_id: proposalId } };
}

function reject(reason: string): Judged {
  return { ok: false, reason };
}

function judgeSectionChange(command: Wire, state: RunState, role: Role, writer: string): Judged {
  const payload = command.payload;
  const change = changeOf(command.type, payload);
  if (!change) return reject(`${command.type} carries no section change`);
  if (role === 'conductor') return reject(CONDUCTOR_REFUSAL);
  const proposal = payload.proposal === true;
  if (!proposal && role !== 'writer') {
    return reject(
      `only the writer (${writer}) changes canon; send this as a proposal ("proposal": true) and the writer accepts or declines it`,
    );
  }
  const source = payload.source_worker_id;
  if (role !== 'writer' && typeof source === 'string' && source !== command.sender) {
    return reject(`source_worker_id "${source}" must be the sender "${command.sender}" itself`);
  }
  const applied = applyChange(state.doc, change);
  if (!applied.ok) return reject(applied.reason);
  return proposal
    ? ack(state.revision, 'proposal', command.wire_id)
    : ack(state.revision + 1, 'canon');
}

function judgeOnProposal(command: Wire, state: RunState, role: Role, writer: string): Judged {
  if (role === 'conductor') return reject(CONDUCTOR_REFUSAL);
  if (role !== 'writer') return reject(`only the writer (${writer}) accepts or declines proposals`);
  const id = String(command.payload.proposal_id);
  const found = ownValue(state.proposals, id);
  if (!found) return reject(`proposal "${id}" does not exist in this run`);
  if (found.status !== 'open') return reject(`proposal "${id}" is already ${found.status}`);
  if (command.type === ACTOR_MESSAGES.WriterDeclineProposal)
    return ack(state.revision, 'declined', id);
  const applied = applyChange(state.doc, found.change);
  if (!applied.ok) {
    return reject(
      `proposal "${id}" (made against revision ${found.base_revision}) no longer applies to revision ${state.revision}: ${applied.reason}`,
    );
  }
  return ack(state.revision + 1, 'merged', id);
}

export function judge(command: Wire, state: RunState, role: Role, writer: string): Judged {
  if (SECTION_CHANGES.includes(command.type))
    return judgeSectionChange(command, state, role, writer);
  switch (command.type) {
    case ACTOR_MESSAGES.WriterAcceptProposal:
    case ACTOR_MESSAGES.WriterDeclineProposal:
      return judgeOnProposal(command, state, role, writer);
    case ACTOR_MESSAGES.WriterRequestRevision: {
      const section = command.payload.section;
      if (typeof section === 'string' && !ownValue(state.doc.sections, section)) {
        return reject(missingSection(state.doc, section));
      }
      return ack(state.revision, 'delivered');
    }
    case ACTOR_MESSAGES.ConductorRequest:
      if (role === 'conductor') {
        return reject(
          'a ConductorRequest goes to the conductor: the conductor cannot send one to itself',
        );
      }
      // Acknowledged as delivered only when a mailbox copy has someone to reach.
      return (state.run?.conductors.length ?? 0) === 0
        ? reject('the run has no conductor to deliver a ConductorRequest to')
        : ack(state.revision, 'delivered');
    default:
      return reject(`${command.type} is not an actor message`);
  }
}

export function verdictDraft(command: Wire, judged: Judged, revision: number, now: number): Draft {
  const runId = runIdOf(command.stream_id);
  const payload: Payload = judged.ok
    ? {
        run_id: runId,
        message_id: command.wire_id,
        revision: judged.ack.revision,
        outcome: judged.ack.outcome,
        ...(judged.ack.proposal_id ? { proposal_id: judged.ack.proposal_id } : {}),
      }
    : { run_id: runId, message_id: command.wire_id, reason: judged.reason, revision };
  return {
    wire: '1.1',
    wire_id: derivedWireId('verdict', command.wire_id),
    stream_id: command.stream_id,
    correlation_id: command.correlation_id,
    causation_id: command.wire_id,
    type: judged.ok ? VERDICT_TYPES.ack : VERDICT_TYPES.reject,
    sender: 'system',
    ts: new Date(now).toISOString(),
    payload,
  };
}
