import { Hono } from 'hono';
import type { AppEnv } from '../../../api/app-env';
import { requireStream } from '../../../api/auth';
import { subscribeProblem } from '../../../api/limits/subscriber-cap';
import { problem } from '../../../api/problem';
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

function cursor(
  raw: string | undefined,
  name: string,
  fallback: number,
  max: number,
): Result<{ value: number }> {
  if (raw === undefined || raw === '') return { ok: true, value: fallback };
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max) {
    return fail('invalid-query', `${name} must be an integer from 0 to ${max}, got "${raw}"`);
  }
  return { ok: true, value: Number(raw) };
}

roleFeeds.get('/roles/:role/wires', async (c) => {
  const role = roleStream(c.req.param('role'));
  if (!role.ok) return problem(c, role);
  const denied = requireStream(c, role.streamId);
  if (denied) return denied;
  const after = cursor(
    c.req.query('after') ?? c.req.query('after_seq'),
    'after',
    0,
    Number.MAX_SAFE_INTEGER,
  );
  if (!after.ok) return problem(c, after);
  const limit = cursor(c.req.query('limit'), 'limit', 100, MAX_PAGE);
  if (!limit.ok) return problem(c, limit);
  if (limit.value < 1)
    return problem(c, fail('invalid-query', `limit must be an integer from 1 to ${MAX_PAGE}`));
  const page = await streamStub(c.env, role.streamId).read(after.value, limit.value);
  const last = page.wires.at(-1)?.stream_seq ?? after.value;
  return Response.json(
    {
      role: c.req.param('role'),
      stream_id: role.streamId,
      wires: page.wires,
      last_seq: page.last_seq,
      next_after: last < page.last_seq ? last : null,
    },
    { headers: { ETag: `"${page.last_seq}"` } },
  );
});

roleFeeds.get('/roles/:role/ws', async (c) => {
  const role = roleStream(c.req.param('role'));
  if (!role.ok) return problem(c, role);
  const denied = requireStream(c, role.streamId);
  if (denied) return denied;
  const after = cursor(
    c.req.query('after') ?? c.req.query('after_seq'),
    'after',
    0,
    Number.MAX_SAFE_INTEGER,
  );
  if (!after.ok) return problem(c, after);
  const stream = streamStub(c.env, role.streamId);
  // Named as the client sent it (the SDK sends after_seq).
  const param = c.req.query('after') !== undefined ? 'after' : 'after_seq';
  const refused = await subscribeProblem(c.env, stream, after.value, param);
  if (refused) return problem(c, refused);
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return problem(
      c,
      fail('invalid-header', 'this endpoint needs a WebSocket upgrade (Upgrade: websocket)'),
    );
  }
  // The StreamObject reads `after_seq`; the role API also accepts `after`.
  const url = new URL(c.req.url);
  url.searchParams.set('after_seq', String(after.value));
  return stream.fetch(new Request(url, c.req.raw));
});

roleFeeds.get('/coordination/:stream_id', async (c) => {
  const streamId = c.req.param('stream_id');
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  const view = await streamStub(c.env, streamId).coordination();
  return Response.json({ stream_id: streamId, ...view });
});
