import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import {
  answer,
  Freshness,
  Name,
  Paging,
  pageOf,
  pageQuery,
  Where,
  withJson,
} from './read-support';

/**
 * `GET /v1/streams`: the list, from stream_state. Mounted at exactly
 * `/v1/streams`; `/v1/streams/{id}…` stays with routes/streams.ts.
 */
export const readStreams = new Hono<AppEnv>();

const Kind = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a stream kind such as task');
const Status = z.string().regex(/^[a-z][a-z_]{0,31}$/, 'must be a status word such as active');

/** `GET /v1/streams` */
export const StreamsQuery = {
  type: Kind.optional(),
  status: Status.optional(),
  correlation_id: Name.optional(),
  ...Paging,
  ...Freshness,
};

readStreams.get('/streams', async (c) => {
  const page = pageQuery(c, StreamsQuery, 1);
  if (!page.ok) return problem(c, page);
  const { query: q, after } = page;
  const where = new Where()
    .eq('stream_type', q.type)
    .eq('status', q.status)
    .eq('correlation_id', q.correlation_id)
    .streams('stream_id', c);
  if (after) where.add('stream_id > ?', ...after);
  const stmt = c.env.DB.prepare(
    `SELECT * FROM stream_state ${where.sql} ORDER BY stream_id LIMIT ?`,
  ).bind(...where.params, q.limit + 1);
  return answer(c, q, [stmt], ([rows = []]) => {
    const page = pageOf(rows, q.limit, (r) => [String(r.stream_id)]);
    const streams = page.items.map((r) => withJson(r, ['state']));
    return { ok: true, body: { streams, next_cursor: page.next_cursor } };
  });
});
