import * as z from 'zod';
import { AnchoringBody } from '../routes/topic-log';
import { AUTH, BODY, type Operation } from './operation';

/** Log mode's archive (tlog-tiles in R2) and a topic's own anchoring setting (issue 31). */

const TopicIdParam = z.string().meta({ description: 'An HCS topic id, `0.0.N`' });
const TopicParam = z.string().meta({
  description: 'A topic name (`default`, `roles.developer`, `project.<id>`…) or its HCS id',
});
const TilePathParam = z.string().meta({
  description:
    'The rest of a C2SP tlog-tiles path, over several segments: `<L>/<N>[.p/<W>]` (hash tiles) or `entries/<N>[.p/<W>]` (entry bundles), N in 3-digit groups (`x001/234`)',
});

const Source = z.enum(['topic', 'deployment', 'default']);
const Settings = z.object({
  mode: z.enum(['envelope', 'log']),
  every: z.int().min(1),
  ms: z.int().min(1),
});

const Anchoring = z.object({
  topic: z.string(),
  name: z
    .string()
    .nullable()
    .meta({ description: 'The name the topic knows itself by (null before its first Wire)' }),
  hcs_topic_id: z.string().nullable(),
  own: AnchoringBody.nullable().meta({ description: "The topic's own settings (null: none)" }),
  settings: Settings.meta({ description: 'The effective settings' }),
  running_mode: z.enum(['envelope', 'log']).meta({
    description:
      'The mode the topic anchors in now: `settings.mode`, except envelope mode while `log_unavailable`',
  }),
  log_unavailable: z.string().nullable().meta({
    description:
      'Why the topic anchors in envelope mode although its settings ask for log mode (null: they do not, or it can): a log needs an HCS topic of its own, which a topic name sharing one (not in HEDERA_TOPICS on testnet/mainnet, or given the id of another) lacks; and every Wire must fit a log entry (65,535 bytes once anchored), which a WIRE_MAX_BYTES above 62,944 (47,060 with PRIVATE_PROJECTS) does not promise',
  }),
  sources: z.object({ mode: Source, every: Source, ms: Source }).meta({
    description: 'Where each setting comes from: the topic, the deployment vars, or the default',
  }),
  archive: z.object({
    archived_size: z.int().min(0).meta({ description: 'Leaves archived in R2 as tlog-tiles' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last write to R2 failed; null once one succeeds' }),
  }),
  log_keys: z.object({
    verifier_keys: z.array(z.string()).meta({
      description:
        'The verifier keys checkpoints are opened with: LOG_SIGNER_KEY, then LOG_VERIFIER_KEYS',
    }),
    problem: z.string().nullable().meta({
      description:
        'What is wrong with LOG_SIGNER_KEY or LOG_VERIFIER_KEYS (null: nothing); checkpoints by an unlisted earlier key do not verify',
    }),
  }),
});

function tileRead(
  o: Pick<Operation, 'path' | 'operationId' | 'summary' | 'description' | 'pathParams'>,
  answer: { description: string; contentType: string; schema: z.ZodType },
  invalid: boolean,
): Operation {
  return {
    method: 'get',
    ...o,
    tag: 'Anchoring',
    access: 'bearer',
    scope: 'read (a token without stream prefixes)',
    answers: { 200: { ...answer, headers: ['CacheControl'] } },
    problems: [...AUTH, ...(invalid ? (['invalid-query'] as const) : []), 'not-found'],
  };
}

export const TOPIC_LOG_OPERATIONS: Operation[] = [
  tileRead(
    {
      path: '/v1/topics/{hcs_topic_id}/log/checkpoint',
      operationId: 'logArchiveCheckpoint',
      summary: 'The latest archived checkpoint of a log-mode topic (C2SP tlog-tiles)',
      description:
        'The signed C2SP checkpoint note the archive in R2 holds tiles for. With `…/log/tile/…` this makes `/v1/topics/{hcs_topic_id}/log/` the prefix of a tlog-tiles log any tiles client can read.',
      pathParams: { hcs_topic_id: TopicIdParam },
    },
    { description: 'The signed checkpoint', contentType: 'text/plain', schema: z.string() },
    false,
  ),
  tileRead(
    {
      path: '/v1/topics/{hcs_topic_id}/log/tile/{tile_path}',
      operationId: 'logArchiveTile',
      summary: 'A hash tile or entry bundle of a log-mode topic (C2SP tlog-tiles)',
      description:
        'Hash tiles hold 32-byte SHA-256 hashes (level 0: leaf hashes); entry bundles hold each leaf (the canonical JSON of the anchored envelope) as a big-endian uint16 length and its bytes. Immutable.',
      pathParams: { hcs_topic_id: TopicIdParam, tile_path: TilePathParam },
    },
    { description: 'The tile', contentType: 'application/octet-stream', schema: z.unknown() },
    true,
  ),
  {
    method: 'get',
    path: '/v1/topics/{topic}/anchoring',
    operationId: 'topicAnchoring',
    tag: 'Anchoring',
    summary:
      "A topic's anchoring mode and checkpoint interval, where each comes from, and its archive",
    access: 'bearer',
    scope: 'read (a token without stream prefixes)',
    pathParams: { topic: TopicParam },
    answers: { 200: { description: 'The settings', schema: Anchoring } },
    problems: [...AUTH, 'invalid-query', 'not-found'],
  },
  {
    method: 'put',
    path: '/v1/topics/{topic}/anchoring',
    operationId: 'setTopicAnchoring',
    tag: 'Anchoring',
    summary: "Set a topic's own anchoring mode and checkpoint interval",
    description:
      "Replaces the topic's own settings: a field left out (or `{}`) follows the deployment (`ANCHOR_MODE`, `LOG_CHECKPOINT_EVERY`, `LOG_CHECKPOINT_MS`). Log mode needs the `LOG_SIGNER_KEY` secret, a `LOG_VERIFIER_KEYS` that reads, an HCS topic the topic does not share with another topic name, and a `WIRE_MAX_BYTES` whose Wires fit a log entry once anchored (at most 62,944; 47,060 with `PRIVATE_PROJECTS`) (422 otherwise, naming `mode`). Switching back to envelope mode first finishes the checkpoints already signed, then sends the Wires no checkpoint holds as their own messages; the log's proofs stay served.",
    access: 'bearer',
    scope: 'admin (a token without stream prefixes)',
    pathParams: { topic: TopicParam },
    body: { schema: AnchoringBody, required: true, description: "The topic's own settings" },
    answers: { 200: { description: 'The settings now', schema: Anchoring } },
    problems: [...AUTH, ...BODY, 'invalid-query', 'invalid-body', 'not-found'],
  },
];
