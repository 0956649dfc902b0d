import type * as z from 'zod';
import type { Draft, Wire } from '../envelope';
import type { Result } from '../failure';

/** What a dialect knows about the request besides the body. Data, not IO. */
export interface DecodeContext {
  /** The stream the body was posted to (already checked). */
  readonly streamId: string;
  /** The authenticated sender, for envelopes that name none. */
  readonly sender?: string | undefined;
  /** Mints a server wire_id for envelopes that carry none. */
  readonly newWireId: () => string;
}

/** A decoded envelope: the Wire to append and the `stream_seq` its sender expects, if it said. */
export interface Decoded {
  draft: Draft;
  expectedSeq?: number | undefined;
}

/**
 * A codec between one envelope shape and Wire 1.1 that keeps every field.
 * The law (checked by test/node/dialects-property.test.ts): for every envelope
 * `x` the dialect accepts, in its read-back form,
 * `encode({ ...decode(x).draft, stream_seq: decode(x).expectedSeq ?? n })`
 * equals `x` in JSON terms, key order aside.
 */
export interface Dialect<Envelope = unknown> {
  /** Stable name: `wire-1.1`, `wire-1.0`, `gsd-events`… */
  readonly name: string;
  /** The envelope as the dialect's clients send it (published as JSON Schema). */
  readonly schema: z.ZodType;
  /** Body → Wire draft; an invalid body is a Failure with field paths, never a throw. */
  decode(body: unknown, ctx: DecodeContext): Result<Decoded>;
  /** Wire → the dialect's envelope. Total: never throws, whatever Wire it is given. */
  encode(wire: Wire): Envelope;
  /**
   * Where a Wire field (`payload.plan`, `wire_id`, `ts`) sits in this
   * dialect's envelope, so that checks made on the Wire after decoding (the
   * payload catalogue, reserved wire ids) name the field the client sent.
   */
  pathOf(wirePath: string): string;
}

export interface DialectDefinition<Envelope> extends Omit<Dialect<Envelope>, 'pathOf'> {
  /** Defaults to the identity: the dialect's fields have the Wire's names. */
  pathOf?: (wirePath: string) => string;
}

/** A dialect from its parts; `pathOf` defaults to the identity. */
export function defineDialect<Envelope>(
  definition: DialectDefinition<Envelope>,
): Dialect<Envelope> {
  return { ...definition, pathOf: definition.pathOf ?? ((wirePath) => wirePath) };
}
