import * as z from 'zod';
import { Wire } from '../../protocol';

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
