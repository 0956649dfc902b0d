import { rowShape } from '../kernel/sql';

/**
 * How far the projection has got: the number of Wires in `wire_events` and
 * the `received_at` of the newest one. Every read response carries it.
 */
export interface Watermark {
  projected: number;
  last_received_at: string | null;
  /**
   * Read models live projection is not keeping up to date right now: being
   * rebuilt (their rows are the old ones until refolded) or whose rebuild
   * failed. Empty almost always.
   */
  stale_models: string[];
}

const STREAM_ROW = rowShape('wire_events', { stream_id: 'text' });

export function selectWatermark(db: D1Database) {
  return db.prepare(
    `SELECT watermark AS projected, last_received_at,
       (SELECT group_concat(model) FROM projection_meta WHERE status <> 'ready') AS stale_models
     FROM projection_meta WHERE model = 'wire_events'`,
  );
}

export function watermarkOf(row: Record<string, unknown> | undefined): Watermark {
  const stale = typeof row?.stale_models === 'string' ? row.stale_models : '';
  return {
    projected: Number(row?.projected ?? 0),
    last_received_at: typeof row?.last_received_at === 'string' ? row.last_received_at : null,
    stale_models: stale.split(',').filter(Boolean).sort(),
  };
}

/**
 * Whether a Wire with this id is in `wire_events` and folded into its
 * stream's state, on a stream the reader may see (`visibleStream`). While
 * stream_state is being rebuilt, being in `wire_events` is enough: the
 * rebuild folds it in at its end, and reads say which models are stale.
 */
export async function isVisible(
  db: D1Database,
  wireId: string,
  visibleStream: (streamId: string) => boolean = () => true,
): Promise<boolean> {
  // A wire_id is unique within its stream only: any stream's will do.
  const { results } = await db
    .prepare(
      `SELECT w.stream_id FROM wire_events w LEFT JOIN stream_state s ON s.stream_id = w.stream_id
       WHERE w.wire_id = ?1 AND (s.last_seq >= w.stream_seq OR (SELECT status FROM projection_meta
         WHERE model = 'stream_state') <> 'ready')`,
    )
    .bind(wireId)
    .all();
  return results.some((row) => visibleStream(String(STREAM_ROW.parse(row).stream_id)));
}

/**
 * Read-your-writes: polls D1 until the Wire is visible or `timeoutMs` passes.
 * Projection lag is well under a second, so a short poll interval is cheap.
 */
export async function waitForWire(
  db: D1Database,
  wireId: string,
  timeoutMs: number,
  visibleStream?: (streamId: string) => boolean,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    if (await isVisible(db, wireId, visibleStream)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
    delay = Math.min(delay * 2, 100);
  }
}
