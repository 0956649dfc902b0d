import { Hono } from 'hono';
import * as z from 'zod';
import { wireMaxBytes } from '../../env';
import { appendBody } from '../../kernel/append';
import { REGISTRY } from '../../modules';
import { fail, type Result, streamIdProblem } from '../../protocol';
import { streamStub } from '../../stream/stub';
import type { AppEnv } from '../app-env';
import { tokenGuards } from '../auth/guard-append';
import { followSocket } from '../limits/subscriber-cap';
import { problem } from '../problem';
import { AfterSeq, intQuery, limitQuery, parseQuery } from '../query';
import { readJsonBody } from '../read-json-body';

/** `/v1/streams/{stream_id}…`: append, page, describe and follow one stream. */
export const streams = new Hono<AppEnv>();

const MAX_PAGE = 1000;

function stub(c: { env: AppEnv['Bindings'] }, streamId: string) {
  return streamStub(c.env, streamId);
}

/** `GET /v1/streams/{stream_id}/wires`: a page of the log. */
export const StreamPageQuery = { after_seq: AfterSeq, limit: limitQuery(MAX_PAGE) };

/** `GET /v1/streams/{stream_id}/ws`: where to start, and the oldest Wire still unanchored. */
export const StreamFollowQuery = {
  after_seq: AfterSeq,
  anchors_from: intQuery(1, Number.MAX_SAFE_INTEGER, 1).meta({
    description:
      'Lowest `stream_seq` the client still holds as pending: anchor news from there on is sent again',
  }),
};

/** `If-Match: "12"`: append only if the stream's last `stream_seq` is 12 ("0": a new stream). */
export const IfMatchSeq = z.string().regex(/^\s*"\d{1,15}"\s*$/);

function ifMatchSeq(header: string | undefined): Result<{ value: number | undefined }> {
  if (header === undefined) return { ok: true, value: undefined };
  const match = IfMatchSeq.safeParse(header).success ? /\d+/.exec(header) : null;
  if (!match) {
    return fail(
      'invalid-header',
      `If-Match must be the quoted last stream_seq, e.g. "12" (or "0" for a new stream), got ${header}`,
    );
  }
  return { ok: true, value: Number(match[0]) };
}

streams.use('/:stream_id/*', async (c, next) => {
  const problemText = streamIdProblem(c.req.param('stream_id') ?? '');
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  await next();
});

streams.post('/:stream_id/wires', async (c) => {
  const streamId = c.req.param('stream_id');
  const ifMatch = ifMatchSeq(c.req.header('If-Match'));
  if (!ifMatch.ok) return problem(c, ifMatch);
  const body = await readJsonBody(c, wireMaxBytes(c.env));
  if (!body.ok) return problem(c, body);
  const result = await appendBody(
    {
      body: body.body,
      streamId,
      env: c.env,
      guards: tokenGuards(c),
      commit: (draft, expectedSeq) => stub(c, streamId).append(draft, expectedSeq, ifMatch.value),
      replayOf: (draft) => stub(c, streamId).replayOf(draft),
    },
    REGISTRY,
  );
  if (!result.ok) return problem(c, result);
  const headers: Record<string, string> = {
    ETag: `"${result.receipt.stream_seq}"`,
    Location: `/v1/streams/${encodeURIComponent(streamId)}/wires?after_seq=${result.receipt.stream_seq - 1}&limit=1`,
  };
  if (result.replay) headers['Idempotent-Replay'] = 'true';
  return c.json(result.receipt, result.status, headers);
});

streams.get('/:stream_id/wires', async (c) => {
  const parsed = parseQuery(c, StreamPageQuery);
  if (!parsed.ok) return problem(c, parsed);
  const { after_seq, limit } = parsed.query;
  const streamId = c.req.param('stream_id');
  const page = await stub(c, streamId).read(after_seq, limit);
  const last = page.wires.at(-1)?.stream_seq ?? after_seq;
  const body = {
    stream_id: streamId,
    wires: page.wires,
    last_seq: page.last_seq,
    next_after_seq: last < page.last_seq ? last : null,
  };
  // Response.json, not c.json: Hono's JSON typing recurses too deep on payloads.
  return Response.json(body, { headers: { ETag: `"${page.last_seq}"` } });
});

streams.get('/:stream_id/ws', async (c) => {
  // anchors_from is read by the StreamObject (Subscribers.accept); checked here.
  const parsed = parseQuery(c, StreamFollowQuery, { strict: false });
  if (!parsed.ok) return problem(c, parsed);
  return followSocket(c, stub(c, c.req.param('stream_id')), parsed.query.after_seq);
});

streams.get('/:stream_id', async (c) => {
  const streamId = c.req.param('stream_id');
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  const info = await stub(c, streamId).info();
  if (!info) return problem(c, fail('not-found', `stream "${streamId}" has no Wires`));
  return c.json(info, 200, { ETag: `"${info.last_seq}"` });
});
