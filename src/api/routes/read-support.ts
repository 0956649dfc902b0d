import type { Context } from 'hono';
import * as z from 'zod';
import { selectWatermark, waitForWire, watermarkOf } from '../../projection';
import { type Failure, fail, type Result, streamIdProblem, WireId } from '../../protocol';
import { streamStub } from '../../stream/stub';
import type { AppEnv } from '../app-env';
import { mayTouchStream } from '../auth';
import { problem } from '../problem';
import { intQuery, limitQuery, parseQuery, type QueryShape } from '../query';

/**
 * What every read endpoint shares: strict query parsing (an unknown or
 * malformed filter is a 400, never silently ignored), opaque cursors, the
 * caller's stream prefixes, `?wait_for=` and the watermark headers.
 */

/** Longest `?wait_for=` wait: a read-your-writes aid, not a long poll. */
export const MAX_WAIT_MS = 5000;
export const MAX_LIMIT = 500;

const Iso = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-05-01T16:00:00Z' })
  .transform((v) => new Date(v).toISOString());
export const Name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@~-]{0,199}$/, 'must be 1-200 letters, digits or . _ : @ ~ -');

/** Query members every list accepts. */
export const Paging = {
  limit: limitQuery(MAX_LIMIT, 100, 'bounds'),
  cursor: z.string().max(2000).optional().meta({
    description: '`next_cursor` of the previous page, passed back as is',
  }),
};

/** Query members every read accepts. */
export const Freshness = {
  wait_for: WireId.optional().meta({
    description: 'Wait (up to `wait_ms`) until this Wire is projected before reading',
  }),
  wait_ms: intQuery(0, MAX_WAIT_MS, MAX_WAIT_MS, 'bounds').meta({
    description: `Longest wait for \`wait_for\`, in milliseconds (0-${MAX_WAIT_MS})`,
  }),
};

export const Times = { since: Iso.optional(), until: Iso.optional() };

/** Strict: an unknown or malformed filter is a 400, never silently ignored. */
export { parseQuery } from '../query';

/**
 * A read of one thing (`GET …/{param}`): its id from the path, a `Name`, and
 * the freshness query; else the 400 naming what is wrong.
 */
export function oneQuery(
  c: Context<AppEnv>,
  param: string,
): Result<{ id: string; query: { wait_for?: string | undefined; wait_ms: number } }> {
  const raw = c.req.param(param) ?? '';
  const id = Name.safeParse(raw);
  if (!id.success) return fail('invalid-query', `${param} "${raw}" ${id.error.issues[0]?.message}`);
  const parsed = parseQuery(c, Freshness);
  return parsed.ok ? { ok: true, id: raw, query: parsed.query } : parsed;
}

/** Cursors are opaque to clients: base64url of the sort key of the last row served. */
export function encodeCursor(key: (string | number)[]): string {
  return btoa(JSON.stringify(key)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function decodeCursor(
  raw: string | undefined,
  arity: number,
): Result<{ key: (string | number)[] | null }> {
  if (raw === undefined) return { ok: true, key: null };
  try {
    const key = JSON.parse(atob(raw.replaceAll('-', '+').replaceAll('_', '/'))) as unknown;
    if (
      Array.isArray(key) &&
      key.length === arity &&
      key.every((k) => typeof k === 'string' || typeof k === 'number')
    ) {
      return { ok: true, key };
    }
  } catch {
    // fall through
  }
  return fail(
    'invalid-query',
    'cursor: not a cursor this endpoint issued (pass next_cursor back as is)',
    {
      errors: [{ path: 'cursor', message: 'not a cursor this endpoint issued' }],
    },
  );
}

/** A `stream_id` query parameter: a well-formed stream id. */
export const StreamIdFilter = Name.superRefine((value, ctx) => {
  const text = streamIdProblem(value);
  if (text !== null) ctx.addIssue({ code: 'custom', message: text });
});

/**
 * A wire_id is unique within its stream only, so one id can name Wires on
 * several streams. Of `streams` (those holding the id), picks the one the
 * request means: `chosen` (its `?stream_id=`), or else the only one the
 * token may see. `null` when there is none; a 409 naming them when the
 * token sees several and did not choose.
 */
export function oneStreamOf(
  c: Context<AppEnv>,
  wireId: string,
  streams: readonly string[],
  chosen: string | undefined,
): Result<{ streamId: string }> | null {
  const principal = c.get('principal');
  const visible = [...new Set(streams)].filter((s) => !principal || mayTouchStream(principal, s));
  const candidates = chosen === undefined ? visible : visible.filter((s) => s === chosen);
  const [only] = candidates;
  if (only === undefined) return null;
  if (candidates.length === 1) return { ok: true, streamId: only };
  return fail(
    'ambiguous-wire-id',
    `wire_id "${wireId}" names Wires on ${candidates.length} streams (${candidates.join(', ')}): ` +
      'add ?stream_id= to choose one',
    { extra: { stream_ids: candidates } },
  );
}

/** A WHERE clause built from parameterised pieces. */
export class Where {
  readonly #parts: string[] = [];
  readonly params: (string | number)[] = [];

  add(sql: string, ...params: (string | number)[]): this {
    this.#parts.push(sql);
    this.params.push(...params);
    return this;
  }

  /** `column = ?` when the filter was given. */
  eq(column: string, value: string | number | undefined): this {
    return value === undefined ? this : this.add(`${column} = ?`, value);
  }

  /** Only streams the caller's token may touch (`streams` prefixes). */
  streams(column: string, c: Context<AppEnv>): this {
    const prefixes = c.get('principal')?.streams;
    if (!prefixes) return this;
    if (prefixes.length === 0) return this.add('0');
    // GLOB, not LIKE: LIKE ignores ASCII case, and prefixes are case-sensitive
    // everywhere else (mayTouchStream). Prefixes cannot hold * ? [ ] (claims.ts).
    const glob = prefixes.map(() => `${column} GLOB ?`).join(' OR ');
    return this.add(`(${glob})`, ...prefixes.map((p) => `${p}*`));
  }

  get sql(): string {
    return this.#parts.length === 0 ? '' : `WHERE ${this.#parts.join(' AND ')}`;
  }
}

export type Rows = Record<string, unknown>[];

/**
 * Runs the read in one D1 batch together with the watermark (one snapshot),
 * after waiting for `wait_for` if asked, and answers with the headers:
 *   Wirestream-Watermark              Wires projected so far
 *   Wirestream-Watermark-Received-At  received_at of the newest projected Wire
 *   Wirestream-Wait-For               visible | timeout (only with ?wait_for=)
 *   Wirestream-Stale-Models           read models not kept up to date right now,
 *                                     comma-separated (only while a rebuild runs
 *                                     or after one failed)
 */
export async function answer(
  c: Context<AppEnv>,
  freshness: { wait_for?: string | undefined; wait_ms: number },
  statements: D1PreparedStatement[],
  build: (results: Rows[]) => Result<{ body: unknown }> | Failure,
  /** The stream a `not-found` is about: asked whether it holds Wires D1 lacks. */
  streamOfMissing?: string,
): Promise<Response> {
  const db = c.env.DB;
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (freshness.wait_for !== undefined) {
    // A Wire outside the token's prefixes is never "visible": the header must
    // not tell whether it exists.
    const principal = c.get('principal');
    const seen = await waitForWire(db, freshness.wait_for, freshness.wait_ms, (streamId) =>
      principal ? mayTouchStream(principal, streamId) : true,
    );
    headers['Wirestream-Wait-For'] = seen ? 'visible' : 'timeout';
  }
  const results = await db.batch<Record<string, unknown>>([...statements, selectWatermark(db)]);
  const watermark = watermarkOf(results.at(-1)?.results[0]);
  headers['Wirestream-Watermark'] = String(watermark.projected);
  if (watermark.last_received_at) {
    headers['Wirestream-Watermark-Received-At'] = watermark.last_received_at;
  }
  if (watermark.stale_models.length > 0) {
    headers['Wirestream-Stale-Models'] = watermark.stale_models.join(',');
  }
  const built = build(results.slice(0, -1).map((r) => r.results));
  if (!built.ok) {
    const behind =
      built.code === 'not-found' && streamOfMissing !== undefined
        ? await notProjectedYet(c, streamOfMissing, built)
        : null;
    if (behind) headers['Retry-After'] = '1';
    return problem(c, behind ?? built, headers);
  }
  // Response.json, not c.json: Hono's JSON typing recurses too deep on payloads.
  return Response.json(built.body, { headers });
}

/**
 * A read model's "not found" for a stream that does hold Wires: they are not
 * projected yet (a 404 all the same, saying so, with the stream's head), so
 * a client can tell "wait" from "no such thing". Null when the stream is empty
 * or the token may not see it (the answer must not tell it exists).
 */
async function notProjectedYet(
  c: Context<AppEnv>,
  streamId: string,
  missing: Failure,
): Promise<Failure | null> {
  const principal = c.get('principal');
  if (principal && !mayTouchStream(principal, streamId)) return null;
  const { last_seq } = await streamStub(c.env, streamId).subscription();
  if (last_seq === 0) return null;
  return fail(
    'not-found',
    `${missing.detail}: ${streamId} holds ${last_seq} Wire(s) not projected yet; retry, or read with ?wait_for=<wire_id>`,
    { extra: { projected: false, stream_last_seq: last_seq } },
  );
}

/** Parses the JSON text columns of a row for the response. */
export function withJson(row: Record<string, unknown>, columns: string[]) {
  const out: Record<string, unknown> = { ...row };
  for (const column of columns) {
    const value = row[column];
    out[column] = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  }
  return out;
}

/** Splits `limit + 1` rows into a page and the cursor of the next one. */
export function pageOf(
  rows: Rows,
  limit: number,
  keyOf: (row: Record<string, unknown>) => (string | number)[],
): { items: Rows; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    next_cursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null,
  };
}

/**
 * A paged read's query: the parameters of `shape` (which holds `Paging`) and
 * its cursor, decoded to `arity` sort-key parts. One failure, whichever is bad.
 */
export function pageQuery<S extends QueryShape & { cursor: z.ZodType }>(
  c: Context<AppEnv>,
  shape: S,
  arity: number,
): Result<{ query: z.infer<z.ZodObject<S>>; after: (string | number)[] | null }> {
  const parsed = parseQuery(c, shape);
  if (!parsed.ok) return parsed;
  const cursor = decodeCursor((parsed.query as { cursor?: string }).cursor, arity);
  if (!cursor.ok) return cursor;
  return { ok: true, query: parsed.query, after: cursor.key };
}
