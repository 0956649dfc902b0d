import type * as z from 'zod';
import { type Draft, fieldIssues, invalidWire, type Wire, Wire10Input } from '../envelope';
import { fail } from '../failure';
import { defineDialect } from './dialect';

/** The Wire 1.0 envelope, as `encode` gives it back. */
export type Wire10 = Omit<z.infer<typeof Wire10Input>, 'stream_id'>;

/**
 * Wire 1.0, upgraded to 1.1: the server assigns a sortable `wire_id` and takes
 * `stream_id` from the path. Read-back form: the 1.0 envelope without
 * `stream_id` — a 1.0 body may name its stream, but only the path's, so the
 * field is redundant and the Wire does not keep it (its bytes stay today's).
 */
export const wire10 = defineDialect<Wire10>({
  name: 'wire-1.0',
  schema: Wire10Input,
  decode(body, ctx) {
    const parsed = Wire10Input.safeParse(body);
    if (!parsed.success) return invalidWire(fieldIssues(parsed.error));
    const input = parsed.data;
    if (input.stream_id !== undefined && input.stream_id !== ctx.streamId) {
      return fail(
        'stream-id-mismatch',
        `stream_id in the body ("${input.stream_id}") differs from the stream in the path ("${ctx.streamId}")`,
      );
    }
    const draft: Draft = {
      wire: '1.1',
      wire_id: ctx.newWireId(),
      stream_id: ctx.streamId,
      correlation_id: null,
      causation_id: null,
      type: input.type,
      sender: input.sender,
      ts: input.ts,
      payload: input.payload,
    };
    return { ok: true, draft };
  },
  encode: (wire: Wire): Wire10 => ({
    wire: '1.0',
    type: wire.type,
    sender: wire.sender,
    ts: wire.ts,
    payload: wire.payload,
  }),
});
