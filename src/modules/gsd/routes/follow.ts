import { Hono } from 'hono';
import { type AppEnv, parseQuery, problem } from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { EventsQuery, filterOf } from './events';
import { projectOf } from './project';
import { readEvents } from './read-events';

/** `GET …/events/ws`: the events view, live. */
export const follow = new Hono<AppEnv>();

const { wait: _w, count: _c, limit: _l, ...FollowShape } = EventsQuery;
/** The follow's query: the view's filters and where to start. */
export const FollowQuery = FollowShape;

/**
 * Each frame is `{"events":[…],"lastEventId":N}` in the seed's shape, the
 * matching events since the last frame (the first holds those after
 * `after`). Between frames the Worker waits on the stream (`waitPast`, woken
 * by the append), never on a timer.
 */
follow.get('/projects/:project_id/events/ws', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const parsed = parseQuery(c, FollowQuery, { strict: false });
  if (!parsed.ok) return problem(c, parsed);
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return problem(
      c,
      fail('invalid-header', 'this endpoint needs a WebSocket upgrade (Upgrade: websocket)'),
    );
  }
  const filter = filterOf(parsed.query);
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  let open = true;
  server.addEventListener('close', () => {
    open = false;
  });
  server.addEventListener('error', () => {
    open = false;
  });
  const pump = async () => {
    let after = parsed.query.after;
    let first = true;
    while (open) {
      const found = await readEvents(project.stub, filter, after, {
        limit: 5000,
        waitMs: first ? 0 : 10_000, // short rounds: a closed socket stops within one
        count: 1,
      });
      if (!open) break;
      if (first || found.events.length > 0) {
        server.send(JSON.stringify({ events: found.events, lastEventId: found.lastEventId }));
      }
      first = false;
      after = Math.max(after, found.nextAfter ?? found.lastEventId);
    }
  };
  c.executionCtx.waitUntil(
    pump().catch((error) => {
      console.warn('gsd events follow ended', error);
      try {
        server.close(1011, 'follow failed');
      } catch {
        // already closed
      }
    }),
  );
  return new Response(null, { status: 101, webSocket: client });
});
