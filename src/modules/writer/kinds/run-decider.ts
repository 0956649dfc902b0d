import { accept, type Decider } from '../../../kernel/kind';
import { ownValue, withOwn } from '../../../kernel/records';
import { type Draft, type Failure, fail, type Wire } from '../../../protocol';
import { ACTOR_MESSAGES, ACTOR_TYPES, RUN_CREATED, VERDICT_TYPES } from '../catalogue';
import { applyChange, initialDocument, type RunDocument } from '../document';
import { otherRun, runIdOf } from '../ids';
import {
  changeOf,
  historyEntry,
  initialRunState,
  type Pending,
  type Proposal,
  type RunState,
  roleOf,
  type Verdict,
} from './run-state';
import { judge, verdictDraft } from './run-verdict';

/**
 * The writer authority of one run (`run:<run_id>`): the only path through
 * which canon changes. Every actor message from a party to the run is
 * appended together with its verdict — `writer.ack` or `writer.reject` — in
 * one synchronous stretch, so the answer and the log never disagree and a
 * retry of the same `message_id` replays the same verdict. Messages that
 * name no run, or come from someone who holds no capability in it, are
 * refused before anything is stored.
 */

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
        verdicts: withOwn(state.verdicts, id, verdict),
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
    verdicts: withOwn(state.verdicts, pending.message_id, verdict),
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
      return { ...next, proposals: withOwn(state.proposals, proposal.proposal_id, proposal) };
    }
    case 'merged': {
      const found = p.proposal_id ? ownValue(state.proposals, p.proposal_id) : undefined;
      const applied = found && applyChange(state.doc, found.change);
      if (!found || !applied?.ok) return next;
      return {
        ...next,
        doc: applied.doc,
        revision: p.revision,
        proposals: withOwn(state.proposals, found.proposal_id, {
          ...found,
          status: 'merged',
          merged_revision: p.revision,
        }),
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
      const found = p.proposal_id ? ownValue(state.proposals, p.proposal_id) : undefined;
      if (!found) return next;
      const reason = typeof pending.payload.reason === 'string' ? pending.payload.reason : null;
      return {
        ...next,
        proposals: withOwn(state.proposals, found.proposal_id, {
          ...found,
          status: 'declined',
          decline_reason: reason,
        }),
      };
    }
    default:
      return next;
  }
}
