import * as z from 'zod';
import { Signature, Wire } from '../../protocol';

/**
 * What the API answers, as zod schemas for the OpenAPI document. Built into
 * the document at build time only (tools/build-openapi.mjs); the contract
 * test (test/workers/api-contract.test.ts) checks real answers against them.
 * Objects read from D1 rows are open (`looseObject`): the named fields are
 * promised, a new column may join them.
 */

export const Time = z.string().meta({ format: 'date-time' });
export const Seq = z.int().min(0);
export const Cursor = z
  .string()
  .nullable()
  .meta({ description: 'Pass back as `cursor`; null: last page' });

export const Problem = z
  .looseObject({
    type: z.string().meta({ description: '`/problems/{code}`: a stable identifier' }),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({
    description:
      'RFC 9457 problem details. `type` is stable; members beyond these (e.g. `current_seq`, `retry_after_seconds`) add facts about the failure.',
  });

const AnchorPending = z.object({ status: z.literal('pending') });
const AnchorDone = z.object({
  status: z.literal('anchored'),
  topic: z.string(),
  hcs_topic_id: z.string(),
  hcs_sequence_number: z.int(),
  consensus_timestamp: z.string(),
  running_hash: z.string().meta({ description: 'base64, 48 bytes (SHA-384)' }),
  hcs_chunks: z.int(),
});

/** A Wire as a stream serves it: the stored Wire, when it arrived and where it sits on HCS. */
export const ServedWire = z.object({
  ...Wire.shape,
  received_at: Time,
  anchor: z.discriminatedUnion('status', [AnchorPending, AnchorDone]),
});

export const Receipt = z
  .looseObject({
    wire_id: z.string(),
    stream_id: z.string(),
    stream_seq: z.int().min(1),
    received_at: Time,
    fencing_token: z.string().optional(),
    lease_expires_at: Time.optional(),
  })
  .meta({
    description:
      'Where the Wire went. A claim also returns its `fencing_token` and `lease_expires_at`.',
  });

export const StreamPage = z.object({
  stream_id: z.string(),
  wires: z.array(ServedWire),
  last_seq: Seq,
  next_after_seq: Seq.nullable().meta({ description: 'Pass as `after_seq`; null: caught up' }),
});

export const StreamInfo = z.looseObject({
  stream_id: z.string(),
  last_seq: Seq,
  last_type: z.string().nullable(),
  count: Seq,
  created_at: Time.nullable(),
  updated_at: Time.nullable(),
});

export const IssuedToken = z.object({
  token: z.string(),
  sub: z.string(),
  scopes: z.array(z.string()),
  roles: z.array(z.string()),
  streams: z.array(z.string()).nullable(),
  expires_at: Time,
});

export const IssuedTicket = z.object({
  ticket: z.string().meta({ description: 'Opens one WebSocket as `?ticket=`, within a minute' }),
  expires_at: Time,
});

export const EnvelopeProof = z.looseObject({
  wire_id: z.string(),
  stream_id: z.string(),
  stream_seq: z.int(),
  topic: z.string(),
  network: z.string(),
  hcs_topic_id: z.string(),
  hcs_sequence_number: z.int(),
  hcs_chunks: z.int(),
  consensus_timestamp: z.string(),
  running_hash: z.string(),
  running_hash_version: z.int(),
  origin: z.string(),
  message: z.string().meta({ description: 'The exact bytes submitted to HCS (canonical JSON)' }),
  mirror_url: z.string(),
  hashscan_url: z.string().nullable(),
});

const Base64Hashes = z
  .array(z.string())
  .meta({ description: 'SHA-256 hashes, base64, in RFC 9162 order' });

/** Where a log checkpoint sits on HCS (log mode, issue 31). */
const CheckpointAnchor = z.object({
  hcs_topic_id: z.string(),
  hcs_sequence_number: z.int(),
  consensus_timestamp: z.string(),
  running_hash: z.string(),
  running_hash_version: z.int(),
  mirror_url: z.string(),
  hashscan_url: z.string().nullable(),
});

const LogKey = {
  log_origin: z
    .string()
    .meta({ description: "The checkpoints' origin line: `<key name>/<hcs_topic_id>`" }),
  verifier_key: z
    .string()
    .meta({ description: "The C2SP verifier key of the log's current key (LOG_SIGNER_KEY)" }),
  verifier_keys: z.array(z.string()).meta({
    description:
      'Every C2SP verifier key a checkpoint of this log may be signed by: the current one first, then the earlier ones (LOG_VERIFIER_KEYS). The note signature names its key by id',
  }),
};

export const LogProof = z.looseObject({
  mode: z.literal('log'),
  wire_id: z.string(),
  stream_id: z.string(),
  stream_seq: z.int(),
  topic: z.string(),
  network: z.string(),
  leaf: z
    .string()
    .meta({ description: 'The leaf bytes: the canonical JSON of the anchored envelope' }),
  leaf_index: z.int().min(0),
  tree_size: z.int().min(1),
  inclusion_path: Base64Hashes,
  checkpoint: z
    .string()
    .meta({ description: 'The signed C2SP checkpoint note, as submitted to HCS' }),
  ...LogKey,
  checkpoint_anchor: CheckpointAnchor,
});

export const Proof = z.union([EnvelopeProof, LogProof]).meta({
  description:
    'Envelope mode: the Wire is its own HCS message. Log mode (`mode: "log"`): the Wire is a leaf of the topic\'s Merkle tree, included in a signed checkpoint that is on HCS.',
});

const LogCheckpoint = CheckpointAnchor.extend({
  tree_size: z.int().min(1),
  checkpoint: z.string(),
});

export const LogConsistency = z.object({
  hcs_topic_id: z.string(),
  ...LogKey,
  from: LogCheckpoint,
  to: LogCheckpoint,
  consistency_path: Base64Hashes,
});

export const Topics = z.object({
  network: z.string(),
  topics: z.array(
    z.looseObject({
      name: z.string().nullable(),
      hcs_topic_id: z.string().nullable(),
      total: Seq,
      anchored: Seq,
      projected: Seq,
      last_error: z.string().nullable(),
      projection_error: z.string().nullable(),
      listened_to_seq: Seq,
    }),
  ),
});

export const Anchors = z.object({
  hcs_topic_id: z.string(),
  wires: z.array(
    z.looseObject({
      wire_id: z.string(),
      stream_id: z.string(),
      stream_seq: z.int(),
      message: z.string(),
      hcs_sequence_number: z.int().nullable(),
      consensus_timestamp: z.string().nullable(),
      running_hash: z.string().nullable(),
      hcs_chunks: z.int().nullable(),
      origin: z.string(),
      log: z.object({ leaf_index: z.int() }).optional().meta({
        description:
          'Log mode: the Wire is this leaf of the log; `hcs_sequence_number` is its checkpoint, `message` the leaf (proof: GET /v1/wires/{id}/proof)',
      }),
    }),
  ),
  next_after_seq: Seq.nullable(),
});

export const Alerts = z.object({
  alerts: z.array(
    z.looseObject({
      id: z.int(),
      at: Time,
      topic: z.string(),
      hcs_topic_id: z.string(),
      kind: z.string(),
      sequence_number: z.int().nullable(),
      detail: z.string(),
    }),
  ),
  next_after_id: Seq.nullable(),
});

export const TopicMode = z.object({
  stream_id: z.string(),
  topic: z.string().meta({ description: '`stream.<stream_id>` when dedicated, else `shared`' }),
  role: z.string().nullable(),
});

const RebuildJob = z.looseObject({
  id: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  models: z.array(z.string()),
  full: z.boolean(),
  started_at: Time,
  finished_at: Time.nullable(),
});

export const RebuildLine = z.looseObject({ phase: z.string() }).meta({
  description:
    'One line of `application/x-ndjson`: a JSON object per step (`phase`: start, topic, model, done, error…; `refused`: a log-mode entry of the R2 archive that its HCS checkpoint does not vouch for, never projected)',
});

export const ProjectionStatus = z.object({
  rebuild: RebuildJob.nullable(),
  models: z.array(
    z.looseObject({
      model: z.string(),
      reducer_version: z.int(),
      code_version: z.int(),
      status: z.string(),
      stale: z.boolean(),
    }),
  ),
});

export const StreamList = z.object({
  streams: z.array(
    z.looseObject({ stream_id: z.string(), stream_type: z.string(), state: z.unknown() }),
  ),
  next_cursor: Cursor,
});

/** A Wire as the D1 read model holds it. */
const ProjectedWire = z.looseObject({
  wire: z.literal('1.1'),
  wire_id: z.string(),
  stream_id: z.string(),
  stream_seq: z.int(),
  type: z.string(),
  sender: z.string(),
  received_at: Time,
  payload: z.record(z.string(), z.json()),
  sig: Signature.optional().meta({
    description:
      "The agent's signature as it sent it (a private Wire's with its salt); absent when the Wire is unsigned",
  }),
});
const Linked = ProjectedWire.extend({ depth: z.int().min(1) });

export const WireList = z.object({ wires: z.array(ProjectedWire), next_cursor: Cursor });
export const WireDetail = z.object({
  wire: ProjectedWire,
  causes: z.array(Linked),
  unresolved_cause: z
    .string()
    .nullable()
    .meta({ description: 'The first cause not projected or not visible to this token' }),
  consequences: z.array(Linked),
  consequences_truncated: z.boolean(),
});

export const ProblemTypeInfo = z.object({ type: z.string(), status: z.int(), title: z.string() });

export const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.object({}).loose() });
export const JsonSchemaDocument = z.looseObject({ $schema: z.string() });

/** Frames a WebSocket subscriber receives (server → client). */
export const ServerFrame = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('hello'), window: z.int(), ack_every: z.int(), ack_ms: z.int() })
    .meta({ description: 'First frame: flow-control window and how often to ack' }),
  z
    .object({
      kind: z.literal('wires'),
      wires: z.array(ServedWire),
      anchored: z.array(z.looseObject({ stream_seq: z.int() })).optional(),
    })
    .meta({ description: 'Wires in order, without gaps; anchor news may ride along' }),
  z
    .object({ kind: z.literal('anchored'), wires: z.array(z.looseObject({ stream_seq: z.int() })) })
    .meta({ description: 'Wires sent earlier are now anchored on HCS' }),
  z
    .object({ kind: z.literal('caught-up'), last_seq: Seq })
    .meta({ description: 'Everything up to the head was sent; live from here' }),
  z.object({ kind: z.literal('pong') }).meta({ description: 'Answer to a ping' }),
  z
    .object({ kind: z.literal('error'), detail: z.string() })
    .meta({ description: 'A frame from the client was refused' }),
]);

/** Frames a WebSocket subscriber sends (client → server). */
export const ClientFrame = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('ack'), seq: Seq })
    .meta({ description: 'Highest stream_seq handled: opens the flow-control window' }),
  z.object({ kind: z.literal('ping') }).meta({ description: 'Keep-alive; answered with pong' }),
]);
