import { Hono } from 'hono';
import { fail, WireId, WireType } from '../../protocol';
import type { AppEnv } from '../app-env';
import { mayTouchStream } from '../auth';
import { problem } from '../problem';
import {
  answer,
  decodeCursor,
  Freshness,
  Name,
  oneStreamOf,
  Paging,
  pageOf,
  parseQuery,
  type Rows,
  StreamIdFilter,
  Times,
  Where,
  withJson,
} from './read-support';

/**
 * `GET /v1/wires` (search every projected Wire) and `GET /v1/wires/{wire_id}`
 * (one Wire with its causal chain), from wire_events.
 */
export const readWires = new Hono<AppEnv>();

/** How far a causal chain is followed each way, and how many consequences are listed. */
const MAX_DEPTH = 64;
const MAX_CONSEQUENCES = 500;

/** A row as the envelope it holds: `sig` as the agent sent it, left out when unsigned. */
function wireJson(row: Record<string, unknown>) {
  const { payload, sig, ...rest } = withJson(row, ['payload', 'sig']);
  return { wire: '1.1', ...rest, payload, ...(sig === null || sig === undefined ? {} : { sig }) };
}

/** `GET /v1/wires` */
export const WiresQuery = {
  correlation_id: Name.optional(),
  causation_id: Name.optional(),
  type: WireType.optional(),
  sender: Name.optional(),
  stream_id: StreamIdFilter.optional(),
  ...Times,
  ...Paging,
  ...Freshness,
};

readWires.get('/wires', async (c) => {
  const parsed = parseQuery(c, WiresQuery);
  if (!parsed.ok) return problem(c, parsed);
  const q = parsed.query;
  if (q.since !== undefined && q.until !== undefined && q.since > q.until) {
    return problem(c, fail('invalid-query', `since (${q.since}) is after until (${q.until})`));
  }
  const cursor = decodeCursor(q.cursor, 3);
  if (!cursor.ok) return problem(c, cursor);
  const where = new Where()
    .eq('correlation_id', q.correlation_id)
    .eq('causation_id', q.causation_id)
    .eq('type', q.type)
    .eq('sender', q.sender)
    .eq('stream_id', q.stream_id)
    .streams('stream_id', c);
  if (q.since !== undefined) where.add('received_at >= ?', q.since);
  if (q.until !== undefined) where.add('received_at < ?', q.until);
  if (cursor.key) where.add('(received_at, wire_id, stream_id) > (?, ?, ?)', ...cursor.key);
  const stmt = c.env.DB.prepare(
    `SELECT * FROM wire_events ${where.sql} ORDER BY received_at, wire_id, stream_id LIMIT ?`,
  ).bind(...where.params, q.limit + 1);
  return answer(c, q, [stmt], ([rows = []]) => {
    const page = pageOf(rows, q.limit, (r) => [
      String(r.received_at),
      String(r.wire_id),
      String(r.stream_id),
    ]);
    return { ok: true, body: { wires: page.items.map(wireJson), next_cursor: page.next_cursor } };
  });
});

/** `GET /v1/wires/{wire_id}` */
export const WireQuery = { stream_id: StreamIdFilter.optional(), ...Freshness };

readWires.get('/wires/:wire_id', async (c) => {
  const wireId = c.req.param('wire_id');
  const id = WireId.safeParse(wireId);
  if (!id.success) {
    return problem(c, fail('invalid-query', `wire_id "${wireId}": ${id.error.issues[0]?.message}`));
  }
  const parsed = parseQuery(c, WireQuery);
  if (!parsed.ok) return problem(c, parsed);
  const db = c.env.DB;
  const chosen = parsed.query.stream_id;
  // Only `?` placeholders below, bound in order: the stream-prefix scope adds its own.
  const scopeOf = (column: string) => {
    const w = new Where().streams(column, c);
    return { sql: w.sql ? `AND ${w.sql.slice('WHERE '.length)}` : '', params: w.params };
  };
  const own = scopeOf('w.stream_id');
  const pick = chosen === undefined ? '' : 'AND w.stream_id = ?';
  const candidate = [wireId, ...(chosen === undefined ? [] : [chosen]), ...own.params];
  // A wire_id is unique within its stream only: every Wire the token may see
  // with this id, of which the answer needs exactly one (oneStreamOf).
  const self = db
    .prepare(`SELECT w.* FROM wire_events w WHERE w.wire_id = ? ${pick} ${own.sql}`)
    .bind(...candidate);
  const root = `(SELECT w.stream_id FROM wire_events w WHERE w.wire_id = ? ${pick} ${own.sql}
    ORDER BY w.stream_id LIMIT 1)`;
  // Causes: follow causation_id upwards; consequences: every Wire caused by
  // this one, transitively, through Wires the token may see only.
  // Depth-bounded so a cycle cannot run away.
  const causes = db
    .prepare(
      `WITH RECURSIVE up(id, depth) AS (
         SELECT causation_id, 1 FROM wire_events
         WHERE wire_id = ? AND stream_id = ${root} AND causation_id IS NOT NULL
         UNION
         SELECT e.causation_id, up.depth + 1 FROM wire_events e JOIN up ON e.wire_id = up.id
         WHERE e.causation_id IS NOT NULL AND up.depth < ?)
       SELECT up.id AS wanted, up.depth, w.* FROM up LEFT JOIN wire_events w ON w.wire_id = up.id
       ORDER BY up.depth, w.stream_id`,
    )
    .bind(wireId, ...candidate, MAX_DEPTH);
  const seen = scopeOf('e.stream_id');
  const consequences = db
    .prepare(
      `WITH RECURSIVE down(id, stream, depth) AS (
         SELECT e.wire_id, e.stream_id, 1 FROM wire_events e WHERE e.causation_id = ? ${seen.sql}
         UNION
         SELECT e.wire_id, e.stream_id, down.depth + 1 FROM wire_events e
         JOIN down ON e.causation_id = down.id
         WHERE down.depth < ? ${seen.sql})
       SELECT MIN(down.depth) AS depth, w.* FROM down
       JOIN wire_events w ON w.wire_id = down.id AND w.stream_id = down.stream
       GROUP BY w.stream_id, w.wire_id ORDER BY depth, w.received_at, w.wire_id LIMIT ?`,
    )
    .bind(wireId, ...seen.params, MAX_DEPTH, ...seen.params, MAX_CONSEQUENCES + 1);
  return answer(
    c,
    parsed.query,
    [self, causes, consequences],
    ([mine = [], up = [], down = []]) => {
      const picked = oneStreamOf(
        c,
        wireId,
        mine.map((r) => String(r.stream_id)),
        chosen,
      );
      if (picked === null) return fail('not-found', `wire "${wireId}" is not projected`);
      if (!picked.ok) return picked;
      const row = mine.find((r) => r.stream_id === picked.streamId) ?? {};
      const principal = c.get('principal');
      const allowed = (r: Record<string, unknown>) =>
        !principal || mayTouchStream(principal, String(r.stream_id));
      // Upwards the chain ends at the first cause that is not projected or
      // that the token may not see, and both read alike (`unresolved_cause`):
      // what lies beyond a hidden Wire, and whether it exists, is its stream's.
      const end = up.findIndex((r) => r.wire_id === null || !allowed(r));
      const found = end === -1 ? up : up.slice(0, end);
      const missing = end === -1 ? undefined : up[end];
      return {
        ok: true,
        body: {
          wire: wireJson(row),
          causes: chain(found),
          unresolved_cause: missing ? String(missing.wanted) : null,
          consequences: chain(down.slice(0, MAX_CONSEQUENCES)),
          consequences_truncated: down.length > MAX_CONSEQUENCES,
        },
      };
    },
  );
});

function chain(rows: Rows) {
  return rows.map(({ wanted: _w, depth, ...r }) => ({ depth, ...wireJson(r) }));
}
