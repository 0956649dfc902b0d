import * as z from 'zod';
import {
  draftOf,
  fieldIssues,
  invalidWire,
  WIRE_VERSION_MESSAGE,
  type Wire,
  Wire11Input,
  WireTs,
} from '../envelope';
import { fail } from '../failure';
import { isPlainWire11 } from '../wire11-fast-path';
import { defineDialect } from './dialect';

/**
 * Wire 1.1 as a discriminated union of one: a body whose `wire` names another
 * version hears the same message as from `WireInput` (path `wire`).
 */
const Wire11Body = z.discriminatedUnion('wire', [Wire11Input], { error: WIRE_VERSION_MESSAGE });

type Wire11Body = z.infer<typeof Wire11Input>;

/**
 * Wire 1.1, the identity codec. Read-back form: the stored Wire, with
 * `stream_seq` (the one the sequencer gave) and `correlation_id` /
 * `causation_id` present (`null` when the client left them out).
 */
export const wire11 = defineDialect<Wire>({
  name: 'wire-1.1',
  schema: Wire11Input,
  decode(body, ctx) {
    // The common case skips zod (test/node/wire11-fast-path.test.ts); anything unusual takes it.
    const plain =
      isPlainWire11(body, ctx.streamId) && WireTs.safeParse((body as { ts: unknown }).ts).success;
    let input: Wire11Body;
    if (plain) {
      input = body as Wire11Body;
    } else {
      const parsed = Wire11Body.safeParse(body);
      if (!parsed.success) return invalidWire(fieldIssues(parsed.error));
      input = parsed.data;
    }
    if (input.stream_id !== ctx.streamId) {
      return fail(
        'stream-id-mismatch',
        `stream_id in the body ("${input.stream_id}") differs from the stream in the path ("${ctx.streamId}")`,
      );
    }
    // stream_id is the path's (checked above).
    const draft = draftOf(input);
    return { ok: true, draft, expectedSeq: input.stream_seq };
  },
  encode: (wire) => ({ ...wire }),
});
