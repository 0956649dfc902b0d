import type * as z from 'zod';
import { type Draft, fieldIssues, invalidWire, Sender, type Wire } from '../envelope';
import type { FieldIssue, Result } from '../failure';
import { type DecodeContext, type Dialect, defineDialect } from './dialect';
import {
  foreignTypeOf,
  type JsonObject,
  packPayload,
  unpackPayload,
  verbatimType,
  wireTypeOf,
} from './foreign';

/** How a deployment names a foreign dialect and the Wire types it maps to. */
export interface ForeignDialectOptions {
  /** Dialect name; the dialect's own by default. */
  name?: string;
  /** Prefix of the Wire types (`task:started` → `<prefix>.task.started`). */
  prefix?: string;
}

/** What a foreign envelope gives its Wire besides the type. */
export interface ForeignParts {
  /** The envelope's own id; the server mints one when absent. */
  wireId?: string;
  correlationId: string | null;
  /** The sender the envelope names, or the authenticated one. */
  sender: string | undefined;
  ts: string;
  /** The payload's members. */
  fields: JsonObject;
  /** Every other member, kept verbatim under `$envelope`. */
  rest: JsonObject;
}

export interface ForeignDialectDefinition<Parsed> {
  name: string;
  prefix: string;
  /** What joins the words of a foreign type (`:` in `task:started`). */
  separator: string;
  schema: z.ZodType<Parsed>;
  /** The envelope's type, before the prefix. */
  typeOf(parsed: Parsed): string;
  /**
   * The envelope split into Wire fields and the rest. `body` is the body as
   * sent (what was sent is what is kept, not zod's copy); `typeKept` says the
   * type has no Wire form and belongs in `rest`.
   */
  split(parsed: Parsed, body: JsonObject, ctx: DecodeContext, typeKept: boolean): ForeignParts;
  /** The issue reported when neither the envelope nor the request names a sender. */
  noSender: FieldIssue;
  /** The envelope back from its Wire, its foreign type and its unpacked payload. */
  join(wire: Wire, type: string, fields: JsonObject, rest: JsonObject): JsonObject;
  pathOf(wirePath: string): string;
}

/**
 * A dialect for an envelope that is no Wire (seed 003's Envelope v1, seed
 * 004's colon events): parse, map the type under the prefix (or keep it
 * verbatim), check the sender, pack what no Wire field carries; and back.
 */
export function defineForeignDialect<Parsed>(
  definition: ForeignDialectDefinition<Parsed>,
): Dialect<JsonObject> {
  const { prefix, separator, schema } = definition;
  return defineDialect<JsonObject>({
    name: definition.name,
    schema,
    decode(body, ctx): Result<{ draft: Draft }> {
      const parsed = schema.safeParse(body);
      if (!parsed.success) return invalidWire(fieldIssues(parsed.error));
      const foreignType = definition.typeOf(parsed.data);
      const wireType = wireTypeOf(prefix, foreignType, separator);
      const parts = definition.split(parsed.data, body as JsonObject, ctx, wireType === null);
      const { sender } = parts;
      if (sender === undefined || !Sender.safeParse(sender).success) {
        return invalidWire([definition.noSender]);
      }
      const draft: Draft = {
        wire: '1.1',
        wire_id: parts.wireId ?? ctx.newWireId(),
        stream_id: ctx.streamId,
        correlation_id: parts.correlationId,
        causation_id: null,
        type: wireType ?? verbatimType(prefix),
        sender,
        ts: parts.ts,
        payload: packPayload(parts.fields, parts.rest),
      };
      return { ok: true, draft };
    },
    encode(wire) {
      const { fields, rest } = unpackPayload(wire.payload);
      return definition.join(wire, foreignTypeOf(prefix, wire.type, separator), fields, rest);
    },
    pathOf: definition.pathOf,
  });
}
