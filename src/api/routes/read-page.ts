import type { Context } from 'hono';
import type * as z from 'zod';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import type { QueryShape } from '../query';
import { answer, pageOf, pageQuery, type Where } from './read-support';

/** A paged list over one read-model table, keyset-paged by its sort key. */
export interface PageSpec<Query> {
  table: string;
  /** The sort key's columns, in order: also the parts of the cursor. */
  keys: readonly string[];
  /** The answer's member that holds the page (`tasks`, `agents`…). */
  list: string;
  /** The filters the query asks for (the cursor's condition is added after them). */
  where(query: Query): Where;
  /** A row as the answer shows it. */
  item(row: Record<string, unknown>): unknown;
}

/**
 * `GET` of a paged list: the query as `shape` reads it with its cursor, the
 * rows after the cursor in key order, and `{ [list]: items, next_cursor }`
 * with the watermark headers.
 */
export async function listPage<S extends QueryShape & { cursor: z.ZodType }>(
  c: Context<AppEnv>,
  shape: S,
  spec: PageSpec<z.infer<z.ZodObject<S>>>,
): Promise<Response> {
  const { keys } = spec;
  const page = pageQuery(c, shape, keys.length);
  if (!page.ok) return problem(c, page);
  const { query: q, after } = page;
  const where = spec.where(q);
  if (after) {
    const key = keys.length === 1 ? keys.join('') : `(${keys.join(', ')})`;
    const marks = keys.length === 1 ? '?' : `(${keys.map(() => '?').join(', ')})`;
    where.add(`${key} > ${marks}`, ...after);
  }
  const paging = q as unknown as { limit: number; wait_for?: string; wait_ms: number };
  const stmt = c.env.DB.prepare(
    `SELECT * FROM ${spec.table} ${where.sql} ORDER BY ${keys.join(', ')} LIMIT ?`,
  ).bind(...where.params, paging.limit + 1);
  return answer(c, paging, [stmt], ([rows = []]) => {
    const page = pageOf(rows, paging.limit, (r) =>
      keys.map((k) => (typeof r[k] === 'number' ? r[k] : String(r[k]))),
    );
    return {
      ok: true,
      body: { [spec.list]: page.items.map(spec.item), next_cursor: page.next_cursor },
    };
  });
}
