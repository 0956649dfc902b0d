import * as z from 'zod';
import { Seq, Time } from './responses';

/** Answers of the anchoring routes: a Wire's proof, log consistency, topics, anchors, alerts. */

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
