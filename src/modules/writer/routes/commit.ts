import type { Context } from 'hono';
import { type AppEnv, tokenGuards } from '../../../api/module-kit';
import { appendBody } from '../../../kernel/append';
import type { AppendResult } from '../../../kernel/kind';
import { REGISTRY } from '../../../modules';
import { type Draft, draftIdentity } from '../../../protocol';
import { streamStub } from '../../../stream/stub';

/**
 * Appends a message the API built for the caller, through the one append
 * path (catalogue, rights, secrets, rate, then the run's decider). When the
 * client left `ts` to the server, a retry carries a later `ts` than the
 * stored message: if everything else is the same it is the same message, so
 * it is sent again with the stored `ts` and hears the stored verdict.
 */
export async function commitMessage(
  c: Context<AppEnv>,
  draft: Draft,
  serverTs: boolean,
): Promise<AppendResult> {
  const stream = streamStub(c.env, draft.stream_id);
  const send = (body: Draft) =>
    appendBody(
      {
        body: { ...body },
        streamId: body.stream_id,
        env: c.env,
        guards: tokenGuards(c),
        commit: (d, expected) => stream.append(d, expected),
      },
      REGISTRY,
    );
  const result = await send(draft);
  if (result.ok || result.code !== 'wire-id-conflict' || !serverTs) return result;
  const seq = Number(result.extra?.stream_seq);
  const stored = (await stream.read(seq - 1, 1)).wires[0];
  if (!stored || stored.wire_id !== draft.wire_id) return result;
  const again = { ...draft, ts: stored.ts };
  const same: Draft = {
    wire: stored.wire,
    wire_id: stored.wire_id,
    stream_id: stored.stream_id,
    correlation_id: stored.correlation_id,
    causation_id: stored.causation_id,
    type: stored.type,
    sender: stored.sender,
    ts: stored.ts,
    payload: stored.payload,
  };
  return draftIdentity(same) === draftIdentity(again) ? send(again) : result;
}
