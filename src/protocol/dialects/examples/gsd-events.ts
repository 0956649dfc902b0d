import * as z from 'zod';
import { type Draft, fieldIssues, invalidWire, Sender } from '../../envelope';
import { defineDialect } from '../dialect';
import {
  ENVELOPE_KEY,
  foreignTypeOf,
  type JsonObject,
  packPayload,
  unpackPayload,
  verbatimType,
  wireTypeOf,
} from '../foreign';

/** `task:started`, `artifact:created`, `a:b:c`: words joined by colons. */
const COLON_TYPE = /^[^\s:]+(:[^\s:]+)+$/;

/** A colon-named event (seed 004): flat, with `type` and `timestamp`, anything else alongside. */
export const GsdEvent = z
  .object(
    {
      type: z
        .string({ error: 'type must be a colon-named event such as "task:started"' })
        .max(200, 'type must be at most 200 characters')
        .regex(COLON_TYPE, 'type must be a colon-named event such as "task:started"'),
      timestamp: z.iso.datetime({
        offset: true,
        error: 'timestamp must be an ISO 8601 date-time',
      }),
      agent: z
        .string()
        .regex(
          /^[A-Za-z0-9._:@-]{1,122}$/,
          'agent must be 1-122 characters: letters, digits, . _ : @ -',
        )
        .optional(),
    },
    { error: 'an event must be a JSON object' },
  )
  .catchall(z.json());

export interface GsdEventsOptions {
  /** Dialect name; `gsd-events` by default. */
  name?: string;
  /** Prefix of the Wire types; `gsd` by default (`task:started` → `gsd.task.started`). */
  prefix?: string;
}

/**
 * Seed 004's colon events as Wires. `type` → `<prefix>.<words>` (the original
 * under `$envelope.type` when it has no Wire form); `timestamp` → `ts`; every
 * other member is the payload as sent; `agent` also names the sender
 * (`agent:<agent>`, so the token must be that agent's), and an event without
 * one is the authenticated sender's. The server mints `wire_id`; the event's
 * `id` (the emitter's counter), if sent, is a payload member like any other.
 * Read-back form: the event as sent.
 */
export function gsdEventsDialect(options: GsdEventsOptions = {}) {
  const prefix = options.prefix ?? 'gsd';
  return defineDialect<JsonObject>({
    name: options.name ?? 'gsd-events',
    schema: GsdEvent,
    decode(body, ctx) {
      const parsed = GsdEvent.safeParse(body);
      if (!parsed.success) return invalidWire(fieldIssues(parsed.error));
      const { type, timestamp, agent } = parsed.data;
      // Members come from the body itself, not zod's copy: what was sent is what is kept.
      const {
        type: _type,
        timestamp: _timestamp,
        [ENVELOPE_KEY]: clash,
        ...fields
      } = body as JsonObject;
      const wireType = wireTypeOf(prefix, type, ':');
      const rest: JsonObject = {};
      if (wireType === null) rest.type = type;
      if (clash !== undefined) rest[ENVELOPE_KEY] = clash;

      const sender = agent !== undefined ? `agent:${agent}` : ctx.sender;
      if (sender === undefined || !Sender.safeParse(sender).success) {
        return invalidWire([
          { path: 'agent', message: 'agent is required when the request names no sender' },
        ]);
      }
      const draft: Draft = {
        wire: '1.1',
        wire_id: ctx.newWireId(),
        stream_id: ctx.streamId,
        correlation_id: null,
        causation_id: null,
        type: wireType ?? verbatimType(prefix),
        sender,
        ts: timestamp,
        payload: packPayload(fields, rest),
      };
      return { ok: true, draft };
    },
    encode(wire) {
      const { fields, rest } = unpackPayload(wire.payload);
      return {
        type: foreignTypeOf(prefix, wire.type, ':'),
        ...fields,
        timestamp: wire.ts,
        ...rest,
      };
    },
    pathOf(wirePath) {
      if (wirePath.startsWith('payload.')) return wirePath.slice('payload.'.length);
      if (wirePath === 'ts') return 'timestamp';
      if (wirePath === 'sender') return 'agent';
      if (wirePath === 'type') return 'type';
      return '(envelope)';
    },
  });
}

/** The GSD dialect with its defaults (`gsd-events`, types under `gsd.`). */
export const gsdEvents = gsdEventsDialect();
