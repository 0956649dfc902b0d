import { type Context, Hono } from 'hono';
import type * as z from 'zod';
import {
  type AppEnv,
  followSocket,
  limitQuery,
  optionalIntQuery,
  parseQuery,
  problem,
  requireStream,
} from '../../../api/module-kit';
import { fail, type Result, streamIdProblem } from '../../../protocol';
import { streamStub } from '../../../stream/stub';

/**
 * Role feeds and coordination state.
 *
 * `/v1/roles/{role}/wires` and `/v1/roles/{role}/ws` serve the stream
 * `role:<role>`: every `task.available` appended on a task stream for that
 * role is copied there by the task stream's durable outbox (so none is lost),
 * and the feed is an ordinary stream — same cursor, same gap-free paging and
 * WebSocket resume. `/v1/coordination/{stream_id}` shows what the stream's
 * decider holds (lease, capacity, health, dependency graph).
 */
export const roleFeeds = new Hono<AppEnv>();

const MAX_PAGE = 1000;

function roleStream(role: string): Result<{ streamId: string }> {
  const streamId = `role:${role}`;
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) {
    return fail(
      'invalid-stream-id',
      `role "${role}" cannot name a feed: letters, digits, . _ ~ - (at most 128)`,
    );
  }
  return { ok: true, streamId };
}

const Position = optionalIntQuery(0, Number.MAX_SAFE_INTEGER);

/**
 * The role feed pages like a stream (`after_seq`, answered with
 * `next_after_seq`); `after` / `next_after` are its older names, still
 * accepted and answered.
 */
export const RoleFeedQuery = {
  after_seq: Position.meta({
    description: '`stream_seq` of the last feed Wire already held (0: from the start)',
  }),
  after: Position.meta({ description: 'Older name of `after_seq`', deprecated: true }),
  limit: limitQuery(MAX_PAGE),
};

/** `GET /v1/roles/{role}/ws`: where to start. */
export const RoleFollowQuery = { after_seq: RoleFeedQuery.after_seq, after: RoleFeedQuery.after };

/**
 * The feed a `/roles/:role/…` request names, checked against the token, and
 * its query with where to start (`after`, else `after_seq`, else 0); or the
 * problem answer.
 */
function feedRequest<S extends typeof RoleFollowQuery>(
  c: Context<AppEnv>,
  shape: S,
): Response | { streamId: string; after: number; query: z.infer<z.ZodObject<S>> } {
  const role = roleStream(c.req.param('role') ?? '');
  if (!role.ok) return problem(c, role);
  const denied = requireStream(c, role.streamId);
  if (denied) return denied;
  const parsed = parseQuery(c, shape, { strict: false });
  if (!parsed.ok) return problem(c, parsed);
  // S holds RoleFollowQuery's members, so its query holds their values.
  const position = parsed.query as z.infer<z.ZodObject<typeof RoleFollowQuery>>;
  const after = position.after ?? position.after_seq ?? 0;
  return { streamId: role.streamId, after, query: parsed.query };
}

roleFeeds.get('/roles/:role/wires', async (c) => {
  const feed = feedRequest(c, RoleFeedQuery);
  if (feed instanceof Response) return feed;
  const { streamId, after } = feed;
  const page = await streamStub(c.env, streamId).read(after, feed.query.limit);
  const last = page.wires.at(-1)?.stream_seq ?? after;
  const next = last < page.last_seq ? last : null;
  return Response.json(
    {
      role: c.req.param('role'),
      stream_id: streamId,
      wires: page.wires,
      last_seq: page.last_seq,
      next_after_seq: next,
      next_after: next,
    },
    { headers: { ETag: `"${page.last_seq}"` } },
  );
});

roleFeeds.get('/roles/:role/ws', async (c) => {
  const feed = feedRequest(c, RoleFollowQuery);
  if (feed instanceof Response) return feed;
  const { streamId, after } = feed;
  const stream = streamStub(c.env, streamId);
  // Named as the client sent it (the SDK sends after_seq).
  const param = c.req.query('after') !== undefined ? 'after' : 'after_seq';
  // The StreamObject reads `after_seq`; the role API also accepts `after`.
  const url = new URL(c.req.url);
  url.searchParams.set('after_seq', String(after));
  return followSocket(c, stream, after, { param, request: new Request(url, c.req.raw) });
});

roleFeeds.get('/coordination/:stream_id', async (c) => {
  const streamId = c.req.param('stream_id');
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  const view = await streamStub(c.env, streamId).coordination();
  return Response.json({ stream_id: streamId, ...view });
});
