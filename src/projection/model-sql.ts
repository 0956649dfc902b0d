import type { Reducer } from './reducer';
import type { BaseRow } from './types';

/**
 * SQL for any read model, generated from its column list (table and column
 * names come from code, never from input; values are always bound). Rows
 * travel as one JSON parameter and are unpacked with `json_each`, so a batch
 * of any size is one statement and stays under D1's 100 bound parameters.
 * https://developers.cloudflare.com/d1/platform/limits/
 */

function extract(columns: readonly string[]): string {
  return columns.map((c) => `json_extract(value, '$.${c}')`).join(', ');
}

/**
 * Upserts rows; a row only replaces one with a lower `last_seq`, so a late or
 * repeated write can never move a read model backwards. A rebuild (`replace`)
 * overwrites whatever is there: it refolds from seq 1, perhaps with a new
 * reducer, while live projection leaves the model alone.
 */
export function upsertRows(
  db: D1Database,
  reducer: Reducer<BaseRow>,
  rows: BaseRow[],
  { replace = false } = {},
) {
  const { model, columns, key } = reducer;
  const sets = columns
    .filter((c) => c !== key)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  const guard = replace ? '' : ` WHERE excluded.last_seq > ${model}.last_seq`;
  // Live writes check, in their own transaction, that no rebuild has taken
  // the model over since the caller looked: a row folded from the old rows
  // must not land after a rebuild has begun refolding them.
  const live = replace
    ? 'true'
    : `(SELECT status FROM projection_meta WHERE model = '${model}') = 'ready'`;
  const sql = `INSERT INTO ${model} (${columns.join(', ')})
    SELECT ${extract(columns)} FROM json_each(?1) WHERE ${live}
    ON CONFLICT (${key}) DO UPDATE SET ${sets}${guard}`;
  const payload = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
  return db.prepare(sql).bind(JSON.stringify(payload));
}

/** Rows of the model owned by any of `streamIds`. */
export function selectRows(db: D1Database, reducer: Reducer<BaseRow>, streamIds: string[]) {
  return db
    .prepare(
      `SELECT ${reducer.columns.join(', ')} FROM ${reducer.model}
       WHERE stream_id IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(streamIds));
}

/**
 * Rows a refold from seq 1 cannot produce: their stream has no first Wire in
 * `wire_events`. What a rebuild removes after refolding instead of emptying
 * the table first (readers keep seeing the old rows meanwhile).
 */
export function deleteUnfoldable(db: D1Database, reducer: Reducer<BaseRow>) {
  const { model } = reducer;
  return db.prepare(
    `DELETE FROM ${model} WHERE NOT EXISTS (SELECT 1 FROM wire_events w
       WHERE w.stream_id = ${model}.stream_id AND w.stream_seq = 1)`,
  );
}
