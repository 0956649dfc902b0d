import { derivedWireId } from '../../../kernel/derived-id';
import type { ReceiptFields } from '../../../kernel/kind';
import { accept, type Decider, defineUnconfiguredKind, type Effect } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { fail, type Payload, type Wire } from '../../../protocol';
import { ACTOR_MESSAGES, MAIL_TYPE, TRACE_TYPES, VERDICT_TYPES } from '../catalogue';
import { mailboxStream, otherRun, runIdOf } from '../ids';
import { runDecider } from './run-decider';
import type { RunState } from './run-state';

/**
 * What the run hands its mailbox (`run-mailbox:<run_id>`) after a verdict:
 * proposals and revision requests for the writer, requests for the
 * conductors. Through the durable outbox, so none is lost; the run never
 * waits for it.
 */
function mailOf(before: RunState, wire: Wire): Effect[] {
  if (wire.type !== VERDICT_TYPES.ack || !before.pending || !before.run) return [];
  const outcome = wire.payload.outcome;
  if (outcome !== 'proposal' && outcome !== 'delivered') return [];
  const pending = before.pending;
  const to =
    pending.type === ACTOR_MESSAGES.ConductorRequest ? before.run.conductors : [before.run.writer];
  if (to.length === 0) return [];
  const runId = runIdOf(wire.stream_id);
  return [
    {
      target: mailboxStream(runId),
      draft: {
        wire: '1.1',
        wire_id: derivedWireId('mail', pending.message_id),
        stream_id: mailboxStream(runId),
        correlation_id: wire.correlation_id,
        causation_id: pending.message_id,
        type: MAIL_TYPE,
        sender: 'system',
        ts: wire.ts,
        payload: {
          run_id: runId,
          to,
          message_id: pending.message_id,
          message_type: pending.type,
          from: pending.sender,
          revision: Number(wire.payload.revision),
          message: pending.payload as Payload,
        },
      },
    },
  ];
}

/** `run:<run_id>`: the writer authority (see run-decider.ts). */
export const runKind = defineUnconfiguredKind<RunState>({
  name: 'run',
  decider: { ...runDecider, react: (before, _after, wire) => mailOf(before, wire) },
  hooks: {
    receipt(state, wire): ReceiptFields | null {
      const isVerdict = wire.type === VERDICT_TYPES.ack || wire.type === VERDICT_TYPES.reject;
      const id = isVerdict ? state.answered : wire.wire_id;
      const verdict = id === null ? undefined : ownValue(state.verdicts, id);
      if (!verdict) return wire.type === 'run.created' ? { revision: state.revision } : null;
      return verdict.verdict === 'WriterAck'
        ? {
            verdict: verdict.verdict,
            revision: verdict.revision,
            outcome: verdict.outcome,
            proposal_id: verdict.proposal_id,
          }
        : { verdict: verdict.verdict, revision: verdict.revision, reason: verdict.reason };
    },
  },
});

/** `run-mailbox:<run_id>`: copies the run stream writes, nobody else. */
const mailboxDecider: Decider<null, null> = {
  initialState: () => null,
  decide: (wire) =>
    wire.sender === 'system' && wire.type === MAIL_TYPE
      ? accept(wire)
      : fail(
          'forbidden',
          `${wire.stream_id} is a run's mailbox: the run copies messages there; send actor messages to POST /v1/runs/{run_id}/messages`,
        ),
  evolve: () => null,
};

export const mailboxKind = defineUnconfiguredKind<null>({
  name: 'run-mailbox',
  decider: mailboxDecider,
});

/**
 * `run-trace:<run_id>`: worker progress and findings. Observability only:
 * the run never reads it, so losing or delaying a trace Wire blocks nothing.
 */
const traceDecider: Decider<null, null> = {
  initialState: () => null,
  decide(wire) {
    if (!(TRACE_TYPES as readonly string[]).includes(wire.type)) {
      return fail(
        'invalid-wire',
        `a run's trace carries ${TRACE_TYPES.join(' and ')} only, not ${wire.type}`,
        {
          errors: [{ path: 'type', message: `must be one of ${TRACE_TYPES.join(', ')}` }],
        },
      );
    }
    return otherRun(wire, 'trace') ?? accept(wire);
  },
  evolve: () => null,
};

export const traceKind = defineUnconfiguredKind<null>({
  name: 'run-trace',
  decider: traceDecider,
});

export const WRITER_KINDS = [runKind, mailboxKind, traceKind];
