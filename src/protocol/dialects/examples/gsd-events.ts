import * as z from 'zod';
import { ENVELOPE_KEY, type JsonObject } from '../foreign';
import { defineForeignDialect, type ForeignDialectOptions } from '../foreign-dialect';

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

/** A deployment's name and Wire-type prefix for the GSD dialect. */
export type GsdEventsOptions = ForeignDialectOptions;

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
  return defineForeignDialect<z.infer<typeof GsdEvent>>({
    name: options.name ?? 'gsd-events',
    prefix: options.prefix ?? 'gsd',
    separator: ':',
    schema: GsdEvent,
    typeOf: (event) => event.type,
    split({ type, timestamp, agent }, body, ctx, typeKept) {
      const { type: _type, timestamp: _timestamp, [ENVELOPE_KEY]: clash, ...fields } = body;
      const rest: JsonObject = {};
      if (typeKept) rest.type = type;
      if (clash !== undefined) rest[ENVELOPE_KEY] = clash;
      const sender = agent !== undefined ? `agent:${agent}` : ctx.sender;
      return { correlationId: null, sender, ts: timestamp, fields, rest };
    },
    noSender: { path: 'agent', message: 'agent is required when the request names no sender' },
    join: (wire, type, fields, rest) => ({ type, ...fields, timestamp: wire.ts, ...rest }),
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
