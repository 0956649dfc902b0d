import * as z from 'zod';
import { WireId, WireTs } from '../../protocol';
import { ACTOR_MESSAGES, type ActorMessageName } from './catalogue';
import * as P from './payloads';

/**
 * The HTTP form of an actor message: the seed's contract name in `type`, a
 * `message_id` (the Wire's `wire_id`: a retry with the same id hears the
 * same verdict), optional `ts` and `correlation` (diagnostics only), and the
 * contract's fields. Strict: an unknown member is an error naming it.
 */
const Envelope = {
  message_id: WireId.meta({
    description: 'Unique per run; a retry with the same id replays the verdict',
  }),
  ts: WireTs.optional(),
  correlation: z.string().min(1).max(256).optional(),
};

function message<N extends ActorMessageName, S extends z.ZodRawShape>(
  name: N,
  payload: z.ZodObject<S>,
) {
  return z.strictObject({ type: z.literal(name), ...Envelope, ...payload.shape });
}

export const ActorMessage = z.discriminatedUnion(
  'type',
  [
    message('WriterApplyPatch', P.WriterApplyPatch),
    message('WriterAppendNote', P.WriterAppendNote),
    message('WriterMarkSectionState', P.WriterMarkSectionState),
    message('WriterAcceptProposal', P.WriterAcceptProposal),
    message('WriterDeclineProposal', P.WriterDeclineProposal),
    message('WriterRequestRevision', P.WriterRequestRevision),
    message('ConductorRequest', P.ConductorRequest),
  ],
  { error: `type must be one of ${Object.keys(ACTOR_MESSAGES).join(', ')}` },
);
export type ActorMessage = z.infer<typeof ActorMessage>;

/** `POST /v1/runs`: a run with its sections and who holds each capability. */
export const CreateRun = z.strictObject({
  ...P.RunCreated.shape,
  ts: WireTs.optional(),
  correlation: z.string().min(1).max(256).optional(),
});
export type CreateRun = z.infer<typeof CreateRun>;

/** What the writer answers (the seed's `WriterAck` / `WriterReject`), plus where it is stored. */
const Stored = z.object({
  stream_id: z.string(),
  stream_seq: z
    .int()
    .meta({ description: "The message's seq on the run stream; its verdict is the next" }),
  received_at: z.string(),
});
export const WriterAnswer = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('WriterAck'),
    run_id: z.string(),
    message_id: z.string(),
    revision: z.int().meta({
      description: 'Canon revision after the message (a proposal: the one it was made against)',
    }),
    outcome: z.enum(['canon', 'proposal', 'merged', 'declined', 'delivered']),
    proposal_id: z.string().nullable(),
    receipt: Stored,
  }),
  z.object({
    type: z.literal('WriterReject'),
    run_id: z.string(),
    message_id: z.string(),
    reason: z.string(),
    revision: z.int().meta({ description: 'Canon revision, unchanged' }),
    receipt: Stored,
  }),
]);

/** The Wire type and payload of an actor message. */
export function wireOf(msg: ActorMessage): { type: string; payload: Record<string, unknown> } {
  const { type, message_id: _id, ts: _ts, correlation, ...fields } = msg;
  const payload: Record<string, unknown> = { ...fields };
  // ConductorRequest carries `correlation` in its contract; elsewhere it is the Wire's correlation_id only.
  if (type === 'ConductorRequest' && correlation !== undefined) payload.correlation = correlation;
  return { type: ACTOR_MESSAGES[type], payload };
}
