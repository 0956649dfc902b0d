import type { Context } from 'hono';
import type * as z from 'zod';
import type { Result } from '../../protocol';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';
import type { QueryShape } from '../query';
import { answer, oneQuery, pageOf, pageQuery, type Rows, Where } from './read-support';

/** A paged list over one read-model table, keyset-paged by its sort key. */
export interface PageSpec<Query> {
  table: string;
  /** The sort key's columns, in order: also the parts of the cursor. */
  keys: readonly string[];
  /** The answer's member that holds the page (`tasks`, `agents`…). */
  list: string;
  /** Equality filters: column → the query member that gives its value, when given. */
  equal: Readonly<Record<string, keyof Query & string>>;
  /** Further conditions, after the equalities and the token's streams (the cursor's come last). */
  more?(query: Query, where: Where): void;
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
  const where = new Where();
  const values = q as Record<string, string | number | undefined>;
  for (const [column, member] of Object.entries(spec.equal)) where.eq(column, values[member]);
  where.streams('stream_id', c);
  spec.more?.(q, where);
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

/** One thing read by its path id: which rows, and how they answer. */
export interface OneSpec {
  table: string;
  /** The column the id is matched against. */
  column: string;
  /** A stream-id prefix the path may carry (`agent:` in `agent:quinn-07`): dropped. */
  prefix?: string;
  orderBy?: string;
  /** The answer from the matching rows (a `not-found` when there are none). */
  build(rows: Rows, id: string): Result<{ body: unknown }>;
  /** The stream a `not-found` is about (asked whether D1 lags behind it). */
  streamOf(id: string): string;
}

/**
 * `GET` of one thing by the path parameter `param`: the rows of the table
 * with that id, within the token's streams, with the watermark headers.
 */
export async function readOne(c: Context<AppEnv>, param: string, spec: OneSpec): Promise<Response> {
  const one = oneQuery(c, param);
  if (!one.ok) return problem(c, one);
  const { prefix } = spec;
  const id = prefix && one.id.startsWith(prefix) ? one.id.slice(prefix.length) : one.id;
  const where = new Where().eq(spec.column, id).streams('stream_id', c);
  const order = spec.orderBy ? ` ORDER BY ${spec.orderBy}` : '';
  const stmt = c.env.DB.prepare(`SELECT * FROM ${spec.table} ${where.sql}${order}`).bind(
    ...where.params,
  );
  return answer(c, one.query, [stmt], ([rows = []]) => spec.build(rows, id), spec.streamOf(id));
}
