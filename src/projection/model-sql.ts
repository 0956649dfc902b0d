import type { Reducer } from './reducer';
import type { BaseRow, Cell } from './types';

/**
 * SQL for any read model, generated from its column list (table and column
 * names come from code, never from input; values are always bound). Rows
 * travel as one JSON parameter and are unpacked with `json_each`, so a batch
 * of any size is one statement and stays under D1's 100 bound parameters.
 * https://developers.cloudflare.com/d1/platform/limits/
 *
 * A model whose rows span streams (`reducer.spans`) keeps its per-stream rows
 * in `read_model_parts` (one JSON `part` per model and stream, with the key
 * and amounts it adds) and its own table holds the sums, recomputed from the
 * parts for every key a write touched (migrations/0010).
 */

type AnyReducer = Reducer<BaseRow>;

function extract(columns: readonly string[]): string {
  return columns.map((c) => `json_extract(value, '$.${c}')`).join(', ');
}

/** Live writes check, in their own transaction, that no rebuild has taken the model over. */
function liveGuard(model: string, replace: boolean): string {
  // A row folded from the old rows must not land after a rebuild has begun
  // refolding them; a rebuild (`replace`) writes regardless.
  return replace
    ? 'true'
    : `(SELECT status FROM projection_meta WHERE model = '${model}') = 'ready'`;
}

/** A value as a D1 cell: JSON values the generic layer stores as text, booleans as 0/1. */
export function cellOf(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return JSON.stringify(value);
}

/**
 * Writes rows of any model; a row only replaces one with a lower `last_seq`,
 * so a late or repeated write can never move a read model backwards. A
 * rebuild (`replace`) overwrites whatever is there: it refolds from seq 1,
 * perhaps with a new reducer, while live projection leaves the model alone.
 */
export function writeRows(
  db: D1Database,
  reducer: AnyReducer,
  rows: BaseRow[],
  { replace = false } = {},
): D1PreparedStatement[] {
  if (reducer.spans) return upsertParts(db, reducer, rows, replace);
  return [upsertRows(db, reducer, rows, { replace })];
}

/** `writeRows` for a model whose rows each belong to one stream: one statement. */
export function upsertRows(
  db: D1Database,
  reducer: AnyReducer,
  rows: BaseRow[],
  { replace = false } = {},
): D1PreparedStatement {
  const { model, columns, key } = reducer;
  const sets = columns
    .filter((c) => c !== key)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  const guard = replace ? '' : ` WHERE excluded.last_seq > ${model}.last_seq`;
  const sql = `INSERT INTO ${model} (${columns.join(', ')})
    SELECT ${extract(columns)} FROM json_each(?1) WHERE ${liveGuard(model, replace)}
    ON CONFLICT (${key}) DO UPDATE SET ${sets}${guard}`;
  const payload = rows.map((row) => Object.fromEntries(columns.map((c) => [c, cellOf(row[c])])));
  return db.prepare(sql).bind(JSON.stringify(payload));
}

/**
 * A spanning model's write: the parts (guarded by `last_seq` like any row),
 * then the sums of every key those streams added to before or add to now.
 */
function upsertParts(
  db: D1Database,
  reducer: AnyReducer,
  rows: BaseRow[],
  replace: boolean,
): D1PreparedStatement[] {
  const { model, spans } = reducer;
  if (!spans) return [];
  const payload = rows.map((row) => {
    const share = spans.share(row);
    return {
      stream_id: row.stream_id,
      share_key: share?.key ?? null,
      share: share ? JSON.stringify(share.add) : null,
      part: JSON.stringify(row),
      reducer_version: row.reducer_version,
      last_seq: row.last_seq,
    };
  });
  const json = JSON.stringify(payload);
  const guard = replace ? '' : ' WHERE excluded.last_seq > read_model_parts.last_seq';
  // The keys these streams add to, before the write and after it.
  const touch = db
    .prepare(
      `INSERT OR IGNORE INTO read_model_touched (model, key)
       SELECT model, share_key FROM read_model_parts
       WHERE model = ?2 AND share_key IS NOT NULL
         AND stream_id IN (SELECT json_extract(value, '$.stream_id') FROM json_each(?1))`,
    )
    .bind(json, model);
  const write = db
    .prepare(
      `INSERT INTO read_model_parts (model, stream_id, share_key, share, part, reducer_version, last_seq)
       SELECT ?2, ${extract(['stream_id', 'share_key', 'share', 'part', 'reducer_version', 'last_seq'])}
       FROM json_each(?1) WHERE ${liveGuard(model, replace)}
       ON CONFLICT (model, stream_id) DO UPDATE SET share_key = excluded.share_key,
         share = excluded.share, part = excluded.part,
         reducer_version = excluded.reducer_version, last_seq = excluded.last_seq${guard}`,
    )
    .bind(json, model);
  const touched = `SELECT key FROM read_model_touched WHERE model = '${model}'`;
  return [
    touch,
    write,
    touch,
    ...resum(db, reducer, touched),
    db.prepare(`DELETE FROM read_model_touched WHERE model = ?1`).bind(model),
  ];
}

/**
 * Recomputes the shared rows of the keys `keys` (SQL) selects from the parts,
 * and removes the keys no stream adds to any more.
 */
function resum(db: D1Database, reducer: AnyReducer, keys: string): D1PreparedStatement[] {
  const { model, spans } = reducer;
  if (!spans) return [];
  const sums = spans.sums.map((c) => `COALESCE(SUM(json_extract(p.share, '$.${c}')), 0)`);
  const sets = spans.sums.map((c) => `${c} = excluded.${c}`).join(', ');
  return [
    db.prepare(
      `DELETE FROM ${model} WHERE ${spans.key} IN (${keys}) AND NOT EXISTS (
         SELECT 1 FROM read_model_parts p WHERE p.model = '${model}' AND p.share_key = ${model}.${spans.key})`,
    ),
    db.prepare(
      `INSERT INTO ${model} (${spans.key}, ${spans.sums.join(', ')})
       SELECT p.share_key, ${sums.join(', ')} FROM read_model_parts p
       WHERE p.model = '${model}' AND p.share_key IN (${keys})
       GROUP BY p.share_key
       ON CONFLICT (${spans.key}) DO UPDATE SET ${sets}`,
    ),
  ];
}

/** Rows of the model owned by any of `streamIds` (read them with `rowsOf`). */
export function selectRows(db: D1Database, reducer: AnyReducer, streamIds: string[]) {
  const ids = JSON.stringify(streamIds);
  if (reducer.spans) {
    return db
      .prepare(
        `SELECT part FROM read_model_parts
         WHERE model = ?2 AND stream_id IN (SELECT value FROM json_each(?1))`,
      )
      .bind(ids, reducer.model);
  }
  return db
    .prepare(
      `SELECT ${reducer.columns.join(', ')} FROM ${reducer.model}
       WHERE stream_id IN (SELECT value FROM json_each(?1))`,
    )
    .bind(ids);
}

/**
 * The rows `selectRows` answered, checked against the reducer's columns: a
 * table that lacks one (a migration not applied, a renamed column) is an
 * error naming it, not a row with `undefined` in it.
 */
export function rowsOf(
  reducer: AnyReducer,
  results: readonly Record<string, unknown>[],
): BaseRow[] {
  const json = new Set<string>(reducer.json ?? []);
  return results.map((result) => {
    const row: Record<string, unknown> = reducer.spans
      ? (JSON.parse(String(result.part)) as Record<string, unknown>)
      : { ...result };
    for (const column of reducer.columns) {
      const value = row[column];
      if (json.has(column) && typeof value === 'string') {
        row[column] = JSON.parse(value) as unknown;
      } else if (
        value === undefined ||
        (value !== null && typeof value === 'object' && !json.has(column))
      ) {
        throw new Error(`read model ${reducer.model}: column ${column} is ${typeof value} in D1`);
      }
    }
    return row as BaseRow;
  });
}

/**
 * How far `reducer` got on the stream `streamExpr` (SQL): its `last_seq`, 0
 * before its first Wire, 9e18 for streams it keeps no row for.
 */
export function foldedSeqOf(reducer: AnyReducer, streamExpr: string): string {
  const seq = `COALESCE(${lastSeqOf(reducer, streamExpr)}, 0)`;
  if (reducer.kinds === undefined) return seq;
  const mine = reducer.kinds.map((k) => `${streamExpr} LIKE '${k}:%'`).join(' OR ');
  return `CASE WHEN ${mine} THEN ${seq} ELSE 9e18 END`;
}

/** How far `reducer` got on the stream `streamExpr` (SQL), or NULL. */
export function lastSeqOf(reducer: AnyReducer, streamExpr: string): string {
  return reducer.spans
    ? `(SELECT m.last_seq FROM read_model_parts m WHERE m.model = '${reducer.model}' AND m.stream_id = ${streamExpr})`
    : `(SELECT m.last_seq FROM ${reducer.model} m WHERE m.stream_id = ${streamExpr})`;
}

/**
 * Rows a refold from seq 1 cannot produce: their stream has no first Wire in
 * `wire_events`. What a rebuild removes after refolding instead of emptying
 * the table first (readers keep seeing the old rows meanwhile). A spanning
 * model's sums are then recomputed from its parts, every key.
 */
export function deleteUnfoldable(db: D1Database, reducer: AnyReducer): D1PreparedStatement[] {
  const { model } = reducer;
  if (reducer.spans) {
    return [
      db
        .prepare(
          `DELETE FROM read_model_parts WHERE model = ?1 AND NOT EXISTS (SELECT 1 FROM wire_events w
             WHERE w.stream_id = read_model_parts.stream_id AND w.stream_seq = 1)`,
        )
        .bind(model),
      ...resum(
        db,
        reducer,
        `SELECT ${reducer.spans.key} FROM ${model} UNION
        SELECT share_key FROM read_model_parts WHERE model = '${model}'`,
      ),
    ];
  }
  return [
    db.prepare(
      `DELETE FROM ${model} WHERE NOT EXISTS (SELECT 1 FROM wire_events w
         WHERE w.stream_id = ${model}.stream_id AND w.stream_seq = 1)`,
    ),
  ];
}
