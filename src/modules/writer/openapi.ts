import * as z from 'zod';
import {
  AUTH,
  appendScoped,
  BODY,
  followOperation,
  type Operation,
  readScoped,
  Seq,
  ServedWire,
  SIGNED,
} from '../../api/openapi-kit';
import type { FailureCode } from '../../protocol';
import { RunId } from './ids';
import { ActorMessage, CreateRun, WriterAnswer } from './messages';
import { FollowLiveQuery, FollowPageQuery } from './routes/follow';
import { DiffQuery, DocumentQuery } from './routes/read-runs';

/**
 * Seed 002's routes as the OpenAPI document describes them;
 * test/workers/api-contract.test.ts calls each one.
 */
const RunIdParam = RunId.meta({ description: 'The run id (ULID-like), the only control key' });
const pathParams = { run_id: RunIdParam };
const TAG = 'Run documents';

const Created = z.object({
  run_id: z.string(),
  stream_id: z.string(),
  revision: z.literal(0),
  receipt: z.object({ stream_id: z.string(), stream_seq: Seq, received_at: z.string() }),
});

const RevisionEntry = z.object({
  revision: z.int(),
  message_id: z.string(),
  message_type: z.string(),
  sender: z.string(),
  source_worker_id: z.string().nullable(),
  proposal_id: z.string().nullable(),
  section: z.string().nullable(),
  at: z.string(),
});

const DocumentAnswer = z.looseObject({
  run_id: z.string(),
  revision: z.int(),
  latest_revision: z.int(),
  writer: z.string().nullable(),
  made_by: RevisionEntry.nullable(),
  document: z.looseObject({ title: z.string(), order: z.array(z.string()) }),
  proposals: z.array(
    z.looseObject({ proposal_id: z.string(), status: z.enum(['open', 'merged', 'declined']) }),
  ),
});

const Page = z.object({
  stream_id: z.string(),
  wires: z.array(ServedWire),
  last_seq: Seq,
  next_after_seq: Seq.nullable(),
});

const RUN_PROBLEMS = [...AUTH, 'invalid-query', 'run-not-found'] as const;

function planeOperations(plane: string, what: string): Operation[] {
  const cap = plane[0]?.toUpperCase() + plane.slice(1);
  return [
    readScoped(TAG, {
      path: `/v1/runs/{run_id}/${plane}`,
      operationId: `readRun${cap}`,
      summary: `Page through the run's ${what}`,
      pathParams,
      query: FollowPageQuery,
      answer: { description: 'A page', schema: Page, headers: ['ETag'] },
      problems: [...AUTH, 'invalid-query'],
    }),
    followOperation(
      {
        path: `/v1/runs/{run_id}/${plane}/ws`,
        operationId: `followRun${cap}`,
        tag: TAG,
        summary: `Follow the run's ${what} live over WebSocket (resume with after_seq)`,
      },
      pathParams,
      FollowLiveQuery,
    ),
  ];
}

/**
 * A `POST` that stores on a run (bearer, `append`): 201, or 200 for a replay;
 * besides its own `problems`, those of any body and of any append.
 */
function runAppend(
  o: Pick<Operation, 'path' | 'operationId' | 'summary' | 'description' | 'pathParams'> & {
    body: z.ZodType;
    answer: [description: string, schema: z.ZodType];
    problems: FailureCode[];
  },
): Operation {
  const { body, answer, problems, ...head } = o;
  return appendScoped(TAG, {
    ...head,
    body: { schema: body, required: true },
    answers: { 201: { description: answer[0], schema: answer[1] } },
    problems: [...AUTH, ...BODY, ...SIGNED, ...problems, 'rate-limited', 'secret-in-payload'],
  });
}

export const WRITER_OPERATIONS: Operation[] = [
  runAppend({
    path: '/v1/runs',
    operationId: 'createRun',
    summary: 'Create a run: its sections, its one writer, conductors and workers',
    description:
      'Idempotent: the same body again answers 200 with `Idempotent-Replay: true`; another body for an existing run_id is a 409 `run-exists`. `human:` identities may always comment (send proposals).',
    body: CreateRun,
    answer: ['The run exists (200: a replay)', Created],
    problems: ['invalid-body', 'invalid-wire', 'run-exists'],
  }),
  runAppend({
    path: '/v1/runs/{run_id}/messages',
    operationId: 'messageRun',
    summary:
      "Send one actor message to the run's writer authority; answers WriterAck or WriterReject",
    description:
      'The message and its verdict are stored together on `run:{run_id}`. A `WriterReject` (a patch that does not apply, a canon change from someone other than the writer, anything from the conductor but a request) is a protocol answer, 201 like an ack (header `Writer-Verdict`). A retry with the same `message_id` answers 200 with the same verdict; the same id with other content is a 409. HTTP errors mean nothing was stored: a malformed message, a run named other than by `run_id`, a sender with no capability in the run (403 `not-run-party`).',
    pathParams,
    body: ActorMessage,
    answer: ['The verdict (200: a replay)', WriterAnswer],
    problems: [
      'invalid-query',
      'invalid-body',
      'invalid-wire',
      'run-not-found',
      'not-run-party',
      'wire-id-conflict',
    ],
  }),
  readScoped(TAG, {
    path: '/v1/runs/{run_id}/document',
    operationId: 'readRunDocument',
    summary: 'Canon at a revision (latest by default), with proposals shown apart',
    pathParams,
    query: DocumentQuery,
    answer: { description: 'The document', schema: DocumentAnswer, headers: ['ETag'] },
    problems: [...RUN_PROBLEMS, 'revision-not-found'],
  }),
  readScoped(TAG, {
    path: '/v1/runs/{run_id}/revisions',
    operationId: 'listRunRevisions',
    summary: 'Every revision: who and which message made it',
    pathParams,
    query: {},
    answer: {
      description: 'The revisions, gap-free from 0',
      schema: z.object({
        run_id: z.string(),
        latest_revision: z.int(),
        revisions: z.array(RevisionEntry),
      }),
    },
    problems: [...RUN_PROBLEMS],
  }),
  readScoped(TAG, {
    path: '/v1/runs/{run_id}/diff',
    operationId: 'diffRunRevisions',
    summary: 'The RFC 6902 ops between two revisions, and the messages that made them',
    pathParams,
    query: DiffQuery,
    answer: {
      description: 'The diff',
      schema: z.object({
        run_id: z.string(),
        from: z.int(),
        to: z.int(),
        ops: z.array(z.looseObject({ op: z.string(), path: z.string() })),
        made_by: z.array(RevisionEntry),
      }),
    },
    problems: [...RUN_PROBLEMS, 'revision-not-found'],
  }),
  ...planeOperations(
    'mailbox',
    'mailbox: proposals and requests addressed to the writer or conductors',
  ),
  ...planeOperations('trace', 'trace: worker progress and findings (observability only)'),
  ...planeOperations('wires', 'control plane: actor messages and their verdicts'),
];
