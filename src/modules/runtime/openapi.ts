import * as z from 'zod';
import {
  AUTH,
  appendScoped,
  BODY,
  type Operation,
  Receipt,
  readScoped,
  SIGNED,
} from '../../api/openapi-kit';
import type { FailureCode } from '../../protocol';
import { EnvelopeV1 } from '../../protocol/dialects';
import { UploadQuery } from './routes/artifacts';
import { RecallQuery } from './routes/branches';
import { BulletinsQuery } from './routes/bulletins';
import { ChannelEventsQuery } from './routes/channels';

/**
 * Runtime v1's routes as the OpenAPI document describes them.
 * test/workers/api-contract.test.ts calls each one.
 */
const TAG = 'Runtime v1';
const PathId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/)
  .meta({ description: 'letters, digits, . _ ~ - (1-100)' });
const channel = { channel_id: PathId };
const worker = { worker_id: PathId };
const branch = { branch_id: PathId };

const APPEND: FailureCode[] = [
  ...AUTH,
  ...BODY,
  ...SIGNED,
  'invalid-stream-id',
  'invalid-wire',
  'secret-in-payload',
  'rate-limited',
  'wire-id-conflict',
  'invalid-transition',
  'not-found',
];

function post(o: {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  pathParams?: Record<string, z.ZodType>;
  extra?: FailureCode[];
}): Operation {
  const { description, extra, ...head } = o;
  return appendScoped(TAG, {
    ...head,
    description: `${description} The body is one Envelope v1 (\`GET /v1/schema/runtime-envelope-v1.json\`); \`messageId\` makes it idempotent (the same envelope again: 200 and \`Idempotent-Replay: true\`).`,
    body: { schema: EnvelopeV1, required: true, description: 'An Envelope v1' },
    answers: {
      201: { description: 'Stored', schema: Receipt, headers: ['ETag'] },
      200: { description: 'A replay', schema: Receipt, headers: ['ETag', 'IdempotentReplay'] },
    },
    problems: [...APPEND, ...(extra ?? [])],
  });
}

function get(o: {
  path: string;
  operationId: string;
  summary: string;
  pathParams?: Record<string, z.ZodType>;
  query?: Operation['query'];
  schema: z.ZodType;
  problems: FailureCode[];
  contentType?: string;
}): Operation {
  const { schema, problems, contentType, ...rest } = o;
  return readScoped(TAG, {
    ...rest,
    answer: { description: o.summary, schema, ...(contentType ? { contentType } : {}) },
    problems: [...AUTH, ...problems],
  });
}

const PLURAL = { channel: 'channels', worker: 'workers', branch: 'branches' } as const;

/** `GET /v1/<kinds>/{<kind>_id}/state`: one instance's state (404 before it exists). */
function stateOf(kind: keyof typeof PLURAL, summary: string, schema: z.ZodType): Operation {
  return get({
    path: `/v1/${PLURAL[kind]}/{${kind}_id}/state`,
    operationId: `${kind}State`,
    summary,
    pathParams: { [`${kind}_id`]: PathId },
    schema,
    problems: ['invalid-stream-id', 'not-found'],
  });
}

const Envelope = z.looseObject({ messageId: z.string(), messageType: z.string() });
const ChannelState = z.looseObject({
  channelId: z.string(),
  opened: z.boolean(),
  liveTokens: z.int(),
  utilization: z.number(),
  level: z.int(),
});

export const RUNTIME_OPERATIONS: Operation[] = [
  post({
    path: '/v1/channels',
    operationId: 'createChannel',
    summary: 'Create a channel with its routing policy and context budget',
    description:
      '`messageType` `channel.opened`; `channelId` names the channel (at most 72 characters, so the ids derived from it fit); the payload holds `policy` (rules in order, each id unique and neither `default` nor `explicit-route`; a default) and `contextBudget` (tokens).',
  }),
  post({
    path: '/v1/channels/{channel_id}/messages',
    operationId: 'postChannelMessage',
    summary: 'Post a message; the channel decides its route in the same stretch',
    description:
      "`channel.message.received`; the channel appends `channel.route.decided` naming the rule that fired, and `compactor.threshold.hit` when the message crosses 80/85/95 % of the budget. A rule routing to a worker is checked as `POST …/route/{worker_id}` is: refused (404, 409) when the worker is not one of the channel's interactive, unfinished workers.",
    pathParams: channel,
    extra: ['worker-not-interactive'],
  }),
  post({
    path: '/v1/channels/{channel_id}/route/{worker_id}',
    operationId: 'routeToWorker',
    summary: 'Route a message to an interactive worker of the channel',
    description:
      '`channel.message.received`, delivered to `worker:{worker_id}` (its feed), which turns `running`.',
    pathParams: { ...channel, ...worker },
    extra: ['worker-not-interactive'],
  }),
  post({
    path: '/v1/channels/{channel_id}/summaries',
    operationId: 'applySummary',
    summary: "Apply a summarize job's result to the channel's live context",
    description:
      '`compactor.summary.applied` with `fromSeq`, `toSeq` and the `summary`: the range is replaced, utilization drops.',
    pathParams: channel,
  }),
  stateOf(
    'channel',
    "The channel's live state (policy, live context, workers, branches)",
    ChannelState,
  ),
  get({
    path: '/v1/channels/{channel_id}/events',
    operationId: 'channelEvents',
    summary: "A page of the channel's events, as Envelope v1",
    pathParams: channel,
    query: ChannelEventsQuery,
    schema: z.object({
      channelId: z.string(),
      events: z.array(z.object({ seq: z.int(), envelope: Envelope })),
      last_seq: z.int(),
      next_after_seq: z.int().nullable(),
    }),
    problems: ['invalid-stream-id', 'invalid-query', 'not-found'],
  }),
  post({
    path: '/v1/workers',
    operationId: 'spawnWorker',
    summary: 'Spawn a worker from a WorkerTaskSpec',
    description:
      '`worker.spawned` with `workerId` and `channelId` (and `branchId` when a branch spawns it); the payload is the WorkerTaskSpec: `goal`, `toolset`, `mode` (`fire_and_forget` | `interactive`), `timeoutSeconds`. The channel must be open and the branch one of its branches that has not concluded (404, 422 naming `branchId`, 409).',
  }),
  post({
    path: '/v1/workers/{worker_id}/events',
    operationId: 'reportWorker',
    summary: 'A worker reports progress, completion or failure',
    description:
      '`worker.progress` (`running` | `waiting`), `worker.completed` (a short report and artifact refs) or `worker.failed`; transitions are enforced (409 `invalid-transition`).',
    pathParams: worker,
  }),
  stateOf(
    'worker',
    "The worker's status, spec and report",
    z.looseObject({ workerId: z.string(), status: z.string() }),
  ),
  post({
    path: '/v1/branches/{branch_id}/conclusion',
    operationId: 'concludeBranch',
    summary: 'A branch returns its conclusion to the channel',
    description:
      '`branch.conclusion` with exactly `conclusion`, `artifactRefs`, `memoryRefs`, `tokenUsage` (no extensions): all the channel hears of the branch.',
    pathParams: branch,
  }),
  stateOf(
    'branch',
    "The branch's status, its workers and its conclusion",
    z.looseObject({ branchId: z.string(), status: z.string() }),
  ),
  post({
    path: '/v1/branches/{branch_id}/memory',
    operationId: 'memorySave',
    summary: 'memory_save: keep a memory (full-text searchable)',
    description: '`memory.saved` with `text` and `tags`; its `messageId` is the memory reference.',
    pathParams: branch,
  }),
  get({
    path: '/v1/branches/{branch_id}/memory',
    operationId: 'memoryRecall',
    summary: 'memory_recall: full-text search over saved memories (FTS5, best first)',
    pathParams: branch,
    query: RecallQuery,
    schema: z.object({
      query: z.string(),
      memories: z.array(z.looseObject({ memory_id: z.string(), text: z.string() })),
    }),
    problems: ['invalid-stream-id', 'invalid-query'],
  }),
  {
    method: 'post',
    path: '/v1/artifacts',
    operationId: 'uploadArtifact',
    tag: TAG,
    summary: 'Upload an artifact (R2); its sha256 is checked against the bytes',
    description:
      'The body is the content, `Content-Type` its media type. Refused (nothing stored) when the bytes do not hash to `sha256`, exceed ARTIFACT_MAX_BYTES (default 1 MiB), or the append is refused (rights, signature, rate). The same bytes again, even at the same time, are one artifact: exactly one upload stores them (201); the others answer 200 with the artifact as recorded when they send the same `Content-Type`, and 409 `artifact-exists` (naming the recorded `contentType`) when they send another. Stored bytes are never overwritten, and the content is served with the recorded `contentType`. An `artifact.stored` Wire posted on `artifact:{id}` by other means is refused unless it matches the stored bytes (409 `artifact-not-stored`) and the artifact has no record yet (409 `artifact-exists`).',
    access: 'bearer',
    scope: 'append',
    query: UploadQuery,
    answers: {
      201: {
        description: 'Stored',
        schema: z.looseObject({ artifactId: z.string(), sha256: z.string(), size: z.int() }),
      },
      200: {
        description: 'Already stored, as first recorded',
        schema: z.looseObject({
          artifactId: z.string(),
          sha256: z.string(),
          size: z.int(),
          contentType: z.string(),
          existing: z.literal(true),
        }),
      },
    },
    problems: [
      ...AUTH,
      'invalid-query',
      'unsupported-media-type',
      'artifact-too-large',
      'artifact-digest-mismatch',
      'artifact-exists',
      'artifact-not-stored',
      'invalid-wire',
      ...SIGNED,
      'rate-limited',
    ],
  },
  get({
    path: '/v1/artifacts/{artifact_id}/content',
    operationId: 'artifactContent',
    summary: "An artifact's content, with the Content-Type it was uploaded with",
    pathParams: { artifact_id: z.string().regex(/^sha256-[0-9a-f]{64}$/) },
    schema: z.unknown(),
    contentType: 'application/octet-stream',
    problems: ['invalid-stream-id', 'not-found'],
  }),
  get({
    path: '/v1/bulletins',
    operationId: 'listBulletins',
    summary: "The Visor's bulletins, newest first",
    query: BulletinsQuery,
    schema: z.object({
      bulletins: z.array(z.looseObject({ bulletin_id: z.string(), digest: z.string() })),
    }),
    problems: ['invalid-query'],
  }),
  get({
    path: '/v1/schema/runtime-envelope-v1.json',
    operationId: 'runtimeSchema',
    summary: 'JSON Schema of Envelope v1 and of every message type, with payload budgets',
    schema: z.looseObject({ envelope: z.unknown(), payloads: z.unknown() }),
    contentType: 'application/schema+json',
    problems: [],
  }),
];
