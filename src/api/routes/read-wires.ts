import { Hono } from 'hono';
import { fail, streamIdProblem, WireId, WireType } from '../../protocol';
import type { AppEnv } from '../app-env';
import { mayTouchStream } from '../auth';
import { problem } from '../problem';
import {
  answer,
  decodeCursor,
  Freshness,
  Name,
  Paging,
  pageOf,
  parseQuery,
  type Rows,
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

const StreamIdFilter = Name.superRefine((value, ctx) => {
  const text = streamIdProblem(value);
  if (text !== null) ctx.addIssue({ code: 'custom', message: text });
});

function wireJson(row: Record<string, unknown>) {
  const { payload, ...rest } = withJson(row, ['payload']);
  return { wire: '1.1', ...rest, payload };
}

readWires.get('/wires', async (c) => {
  const parsed = parseQuery(c, {
    correlation_id: Name.optional(),
    causation_id: Name.optional(),
    type: WireType.optional(),
    sender: Name.optional(),
    stream_id: StreamIdFilter.optional(),
    ...Times,
    ...Paging,
    ...Freshness,
  });
  if (!parsed.ok) return problem(c, parsed);
  const q = parsed.query;
  if (q.since !== undefined && q.until !== undefined && q.since > q.until) {
    return problem(c, fail('invalid-query', `since (${q.since}) is after until (${q.until})`));
  }
  const cursor = decodeCursor(q.cursor, 2);
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
  if (cursor.key) where.add('(received_at, wire_id) > (?, ?)', ...cursor.key);
  const stmt = c.env.DB.prepare(
    `SELECT * FROM wire_events ${where.sql} ORDER BY received_at, wire_id LIMIT ?`,
  ).bind(...where.params, q.limit + 1);
  return answer(c, q, [stmt], ([rows = []]) => {
    const page = pageOf(rows, q.limit, (r) => [String(r.received_at), String(r.wire_id)]);
    return { ok: true, body: { wires: page.items.map(wireJson), next_cursor: page.next_cursor } };
  });
});

readWires.get('/wires/:wire_id', async (c) => {
  const wireId = c.req.param('wire_id');
  const id = WireId.safeParse(wireId);
  if (!id.success) {
    return problem(c, fail('invalid-query', `wire_id "${wireId}": ${id.error.issues[0]?.message}`));
  }
  const parsed = parseQuery(c, Freshness);
  if (!parsed.ok) return problem(c, parsed);
  const db = c.env.DB;
  const scope = new Where().streams('w.stream_id', c);
  const scoped = scope.sql ? `AND ${scope.sql.slice('WHERE '.length)}` : '';
  const self = db
    .prepare(`SELECT w.* FROM wire_events w WHERE w.wire_id = ? ${scoped}`)
    .bind(wireId, ...scope.params);
  // Causes: follow causation_id upwards; consequences: every Wire caused by
  // this one, transitively. Depth-bounded so a cycle cannot run away.
  const causes = db
    .prepare(
      `WITH RECURSIVE up(id, depth) AS (
         SELECT causation_id, 1 FROM wire_events WHERE wire_id = ?1 AND causation_id IS NOT NULL
         UNION
         SELECT e.causation_id, up.depth + 1 FROM wire_events e JOIN up ON e.wire_id = up.id
         WHERE e.causation_id IS NOT NULL AND up.depth < ?2)
       SELECT up.id AS wanted, up.depth, w.* FROM up LEFT JOIN wire_events w ON w.wire_id = up.id
       ORDER BY up.depth`,
    )
    .bind(wireId, MAX_DEPTH);
  const consequences = db
    .prepare(
      `WITH RECURSIVE down(id, depth) AS (
         SELECT wire_id, 1 FROM wire_events WHERE causation_id = ?1
         UNION
         SELECT e.wire_id, down.depth + 1 FROM wire_events e JOIN down ON e.causation_id = down.id
         WHERE down.depth < ?2)
       SELECT MIN(down.depth) AS depth, w.* FROM down JOIN wire_events w ON w.wire_id = down.id
       GROUP BY w.wire_id ORDER BY depth, w.received_at, w.wire_id LIMIT ?3`,
    )
    .bind(wireId, MAX_DEPTH, MAX_CONSEQUENCES + 1);
  return answer(c, parsed.query, [self, causes, consequences], ([own = [], up = [], down = []]) => {
    const row = own[0];
    if (!row) return fail('not-found', `wire "${wireId}" is not projected`);
    const principal = c.get('principal');
    const allowed = (r: Record<string, unknown>) =>
      !principal || mayTouchStream(principal, String(r.stream_id));
    // Upwards the chain ends at the first cause the token may not see: what
    // lies beyond it (and its causation_id) is that hidden Wire's business.
    const hidden = up.findIndex((r) => r.wire_id !== null && !allowed(r));
    const seen = hidden === -1 ? up : up.slice(0, hidden);
    const found = seen.filter((r) => r.wire_id !== null);
    const missing = seen.find((r) => r.wire_id === null);
    return {
      ok: true,
      body: {
        wire: wireJson(row),
        causes: chain(found),
        unresolved_cause: missing ? String(missing.wanted) : null,
        consequences: chain(down.slice(0, MAX_CONSEQUENCES).filter(allowed)),
        consequences_truncated: down.length > MAX_CONSEQUENCES,
      },
    };
  });
});

function chain(rows: Rows) {
  return rows.map(({ wanted: _w, depth, ...r }) => ({ depth, ...wireJson(r) }));
}
