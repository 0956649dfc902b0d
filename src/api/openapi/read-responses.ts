import * as z from 'zod';
import { Signature } from '../../protocol';
import { Cursor, Time } from './responses';

/** Answers of the read models, the admin rebuild and the public documents. */

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
