import { derivedWireId } from '../../../kernel/derived-id';
import { accept, type Decider } from '../../../kernel/kind';
import { type Draft, type Failure, fail, type Payload, type Wire } from '../../../protocol';
import {
  ACTOR_MESSAGES,
  ACTOR_TYPES,
  RUN_CREATED,
  SECTION_CHANGES,
  VERDICT_TYPES,
} from '../catalogue';
import { applyChange, initialDocument, type RunDocument } from '../document';
import { otherRun, runIdOf } from '../ids';
import {
  changeOf,
  historyEntry,
  initialRunState,
  type Pending,
  type Proposal,
  type Role,
  type RunState,
  roleOf,
  type Verdict,
} from './run-state';

/**
 * The writer authority of one run (`run:<run_id>`): the only path through
 * which canon changes. Every actor message from a party to the run is
 * appended together with its verdict — `writer.ack` or `writer.reject` — in
 * one synchronous stretch, so the answer and the log never disagree and a
 * retry of the same `message_id` replays the same verdict. Messages that
 * name no run, or come from someone who holds no capability in it, are
 * refused before anything is stored.
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
  const found = state.proposals[id];
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

function judge(command: Wire, state: RunState, role: Role, writer: string): Judged {
  if (SECTION_CHANGES.includes(command.type))
    return judgeSectionChange(command, state, role, writer);
  switch (command.type) {
    case ACTOR_MESSAGES.WriterAcceptProposal:
    case ACTOR_MESSAGES.WriterDeclineProposal:
      return judgeOnProposal(command, state, role, writer);
    case ACTOR_MESSAGES.WriterRequestRevision:
      return ack(state.revision, 'delivered');
    case ACTOR_MESSAGES.ConductorRequest:
      return role === 'conductor'
        ? reject(
            'a ConductorRequest goes to the conductor: the conductor cannot send one to itself',
          )
        : ack(state.revision, 'delivered');
    default:
      return reject(`${command.type} is not an actor message`);
  }
}

function verdictDraft(command: Wire, judged: Judged, revision: number, now: number): Draft {
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

function decideCreate(command: Wire, state: RunState): readonly Draft[] | Failure {
  const runId = runIdOf(command.stream_id);
  if (state.run) {
    return fail('run-exists', `run ${runId} exists already (created by ${state.run.created_by})`);
  }
  const p = command.payload as { writer: string; conductors?: string[]; workers?: string[] };
  const conductors = p.conductors ?? [];
  const workers = p.workers ?? [];
  const clash = [p.writer, ...conductors].find(
    (who, i, all) => all.indexOf(who) !== i || workers.includes(who),
  );
  if (clash) {
    return fail(
      'invalid-wire',
      `"${clash}" holds two capabilities; the writer, each conductor and each worker are distinct identities`,
      {
        errors: [{ path: 'payload', message: `"${clash}" is named twice` }],
      },
    );
  }
  return accept(command);
}

export const runDecider: Decider<RunState, null> = {
  initialState: initialRunState,

  decide(command, state, ctx) {
    const wrongRun = otherRun(command, 'stream');
    if (wrongRun) return wrongRun;
    const runId = runIdOf(command.stream_id);
    if (command.type === RUN_CREATED) return decideCreate(command, state);
    if (!state.run)
      return fail('run-not-found', `run ${runId} does not exist; create it with POST /v1/runs`);
    if (!ACTOR_TYPES.has(command.type)) {
      return fail(
        'forbidden',
        `${command.type} is written by the run itself, never sent to it; send an actor message (${Object.keys(ACTOR_MESSAGES).join(', ')})`,
      );
    }
    const role = roleOf(state.run, command.sender);
    if (!role) {
      return fail(
        'not-run-party',
        `"${command.sender}" holds no capability in run ${runId}: its writer is ${state.run.writer}, conductors [${state.run.conductors.join(', ')}], workers [${state.run.workers.join(', ')}], and human: identities may comment`,
      );
    }
    const judged = judge(command, state, role, state.run.writer);
    return [...accept(command), verdictDraft(command, judged, state.revision, ctx.now)];
  },

  evolve(state, wire) {
    if (wire.type === RUN_CREATED) return created(state, wire);
    if (ACTOR_TYPES.has(wire.type)) {
      const pending: Pending = {
        message_id: wire.wire_id,
        type: wire.type,
        sender: wire.sender,
        ts: wire.ts,
        payload: wire.payload,
      };
      return { ...state, pending };
    }
    if (wire.type === VERDICT_TYPES.reject) {
      const id = String(wire.payload.message_id);
      const verdict: Verdict = {
        verdict: 'WriterReject',
        revision: Number(wire.payload.revision),
        reason: String(wire.payload.reason),
      };
      return {
        ...state,
        pending: null,
        answered: id,
        verdicts: { ...state.verdicts, [id]: verdict },
      };
    }
    if (wire.type === VERDICT_TYPES.ack && state.pending)
      return acknowledged(state, state.pending, wire);
    return state;
  },
};

function created(state: RunState, wire: Wire): RunState {
  const p = wire.payload as {
    run_id: string;
    title?: string;
    writer: string;
    conductors?: string[];
    workers?: string[];
    sections: { id: string; title?: string; body?: string; state?: string }[];
  };
  const doc: RunDocument = initialDocument(p);
  return {
    ...state,
    run: {
      run_id: p.run_id,
      title: p.title ?? '',
      writer: p.writer,
      conductors: p.conductors ?? [],
      workers: p.workers ?? [],
      created_by: wire.sender,
      created_at: wire.ts,
    },
    doc,
  };
}

/** Applies what the acknowledged message did: canon, a proposal, a merge, a decline. */
function acknowledged(state: RunState, pending: Pending, wire: Wire): RunState {
  const p = wire.payload as { revision: number; outcome: string; proposal_id?: string };
  const verdict: Verdict = {
    verdict: 'WriterAck',
    revision: p.revision,
    outcome: p.outcome as Extract<Verdict, { verdict: 'WriterAck' }>['outcome'],
    proposal_id: p.proposal_id ?? null,
  };
  const next: RunState = {
    ...state,
    pending: null,
    answered: pending.message_id,
    verdicts: { ...state.verdicts, [pending.message_id]: verdict },
  };
  const run = state.run;
  const role = run ? roleOf(run, pending.sender) : null;
  const source =
    typeof pending.payload.source_worker_id === 'string' ? pending.payload.source_worker_id : null;
  switch (p.outcome) {
    case 'canon': {
      const change = changeOf(pending.type, pending.payload);
      const applied = change && applyChange(state.doc, change);
      if (!change || !applied?.ok) return next;
      return {
        ...next,
        doc: applied.doc,
        revision: p.revision,
        history: [
          ...state.history,
          historyEntry(p.revision, pending, wire.ts, {
            source_worker_id: source,
            proposal_id: null,
            section: change.section,
          }),
        ],
      };
    }
    case 'proposal': {
      const change = changeOf(pending.type, pending.payload);
      if (!change) return next;
      const proposal: Proposal = {
        proposal_id: pending.message_id,
        type: change.type,
        section: change.section,
        sender: pending.sender,
        role: role ?? 'human',
        source_worker_id: source ?? pending.sender,
        base_revision: p.revision,
        status: 'open',
        merged_revision: null,
        decline_reason: null,
        change,
        at: pending.ts,
      };
      return { ...next, proposals: { ...state.proposals, [proposal.proposal_id]: proposal } };
    }
    case 'merged': {
      const found = p.proposal_id ? state.proposals[p.proposal_id] : undefined;
      const applied = found && applyChange(state.doc, found.change);
      if (!found || !applied?.ok) return next;
      return {
        ...next,
        doc: applied.doc,
        revision: p.revision,
        proposals: {
          ...state.proposals,
          [found.proposal_id]: { ...found, status: 'merged', merged_revision: p.revision },
        },
        history: [
          ...state.history,
          historyEntry(p.revision, pending, wire.ts, {
            source_worker_id: found.source_worker_id,
            proposal_id: found.proposal_id,
            section: found.section,
          }),
        ],
      };
    }
    case 'declined': {
      const found = p.proposal_id ? state.proposals[p.proposal_id] : undefined;
      if (!found) return next;
      const reason = typeof pending.payload.reason === 'string' ? pending.payload.reason : null;
      return {
        ...next,
        proposals: {
          ...state.proposals,
          [found.proposal_id]: { ...found, status: 'declined', decline_reason: reason },
        },
      };
    }
    default:
      return next;
  }
}
