import { Hono } from 'hono';
import { intVar } from '../../env';
import { appendBody } from '../../kernel/append';
import { REGISTRY } from '../../modules';
import { fail, type Result, streamIdProblem } from '../../protocol';
import { streamStub } from '../../stream/stub';
import type { AppEnv } from '../app-env';
import { tokenGuards } from '../auth/guard-append';
import { subscribeProblem } from '../limits/subscriber-cap';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';

/** `/v1/streams/{stream_id}…`: append, page, describe and follow one stream. */
export const streams = new Hono<AppEnv>();

const MAX_PAGE = 1000;

function stub(c: { env: AppEnv['Bindings'] }, streamId: string) {
  return streamStub(c.env, streamId);
}

function intParam(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): Result<{ value: number }> {
  if (raw === undefined || raw === '') return { ok: true, value: fallback };
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    return fail('invalid-query', `${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return { ok: true, value: Number(raw) };
}

function ifMatchSeq(header: string | undefined): Result<{ value: number | undefined }> {
  if (header === undefined) return { ok: true, value: undefined };
  const match = /^"(\d{1,15})"$/.exec(header.trim());
  if (!match) {
    return fail(
      'invalid-header',
      `If-Match must be the quoted last stream_seq, e.g. "12" (or "0" for a new stream), got ${header}`,
    );
  }
  return { ok: true, value: Number(match[1]) };
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
  const body = await readJsonBody(c, intVar(c.env.WIRE_MAX_BYTES, 8192));
  if (!body.ok) return problem(c, body);
  const result = await appendBody(
    {
      body: body.body,
      streamId,
      guards: tokenGuards(c),
      commit: (draft, expectedSeq) => stub(c, streamId).append(draft, expectedSeq, ifMatch.value),
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
  const after = intParam('after_seq', c.req.query('after_seq'), 0, 0, Number.MAX_SAFE_INTEGER);
  if (!after.ok) return problem(c, after);
  const limit = intParam('limit', c.req.query('limit'), 100, 1, MAX_PAGE);
  if (!limit.ok) return problem(c, limit);
  const streamId = c.req.param('stream_id');
  const page = await stub(c, streamId).read(after.value, limit.value);
  const last = page.wires.at(-1)?.stream_seq ?? after.value;
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
  const after = intParam('after_seq', c.req.query('after_seq'), 0, 0, Number.MAX_SAFE_INTEGER);
  if (!after.ok) return problem(c, after);
  // Optional: the lowest Wire the client still holds as pending (see Subscribers.accept).
  const anchorsFrom = intParam(
    'anchors_from',
    c.req.query('anchors_from'),
    1,
    1,
    Number.MAX_SAFE_INTEGER,
  );
  if (!anchorsFrom.ok) return problem(c, anchorsFrom);
  const stream = stub(c, c.req.param('stream_id'));
  // Checked before the Upgrade header, so a plain GET (the client SDK's probe
  // after a refused upgrade, which a browser cannot read) hears why.
  const refused = await subscribeProblem(c.env, stream, after.value);
  if (refused) return problem(c, refused);
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return problem(
      c,
      fail('invalid-header', 'this endpoint needs a WebSocket upgrade (Upgrade: websocket)'),
    );
  }
  return stream.fetch(c.req.raw);
});

streams.get('/:stream_id', async (c) => {
  const streamId = c.req.param('stream_id');
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  const info = await stub(c, streamId).info();
  if (!info) return problem(c, fail('not-found', `stream "${streamId}" has no Wires`));
  return c.json(info, 200, { ETag: `"${info.last_seq}"` });
});
