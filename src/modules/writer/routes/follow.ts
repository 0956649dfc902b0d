import { type Context, Hono } from 'hono';
import {
  AfterSeq,
  type AppEnv,
  followSocket,
  limitQuery,
  parseQuery,
  problem,
  requireStream,
} from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { mailboxStream, RunId, runStream, traceStream } from '../ids';

/**
 * A run's three streams, paged and followed live like any stream (same
 * cursor, gap-free order, WebSocket resume with `after_seq`):
 * `/v1/runs/{run_id}/mailbox` — what the run copied to the writer and the
 * conductors (proposals, revision requests, conductor requests);
 * `/v1/runs/{run_id}/trace` — worker progress and findings (append with
 * `POST /v1/streams/run-trace:{run_id}/wires`);
 * `/v1/runs/{run_id}/wires` — the control plane itself, messages and verdicts.
 */
export const follow = new Hono<AppEnv>();

export const FollowPageQuery = { after_seq: AfterSeq, limit: limitQuery(1000) };
export const FollowLiveQuery = { after_seq: AfterSeq };

const PLANES = { mailbox: mailboxStream, trace: traceStream, wires: runStream } as const;
type Plane = keyof typeof PLANES;

function streamOf(c: Context<AppEnv>, plane: Plane): { streamId: string } | { response: Response } {
  const id = RunId.safeParse(c.req.param('run_id'));
  if (!id.success)
    return {
      response: problem(c, fail('invalid-query', `path run_id: ${id.error.issues[0]?.message}`)),
    };
  const streamId = PLANES[plane](id.data);
  const denied = requireStream(c, streamId);
  return denied ? { response: denied } : { streamId };
}

for (const plane of Object.keys(PLANES) as Plane[]) {
  follow.get(`/runs/:run_id/${plane}`, async (c) => {
    const target = streamOf(c, plane);
    if ('response' in target) return target.response;
    const parsed = parseQuery(c, FollowPageQuery);
    if (!parsed.ok) return problem(c, parsed);
    const { after_seq, limit } = parsed.query;
    const page = await streamStub(c.env, target.streamId).read(after_seq, limit);
    const last = page.wires.at(-1)?.stream_seq ?? after_seq;
    return Response.json(
      {
        stream_id: target.streamId,
        wires: page.wires,
        last_seq: page.last_seq,
        next_after_seq: last < page.last_seq ? last : null,
      },
      { headers: { ETag: `"${page.last_seq}"` } },
    );
  });

  follow.get(`/runs/:run_id/${plane}/ws`, async (c) => {
    const target = streamOf(c, plane);
    if ('response' in target) return target.response;
    const parsed = parseQuery(c, FollowLiveQuery, { strict: false });
    if (!parsed.ok) return problem(c, parsed);
    return followSocket(c, streamStub(c.env, target.streamId), parsed.query.after_seq);
  });
}
