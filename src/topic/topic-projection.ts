import { firstRow, fixed, parseRows, type RowOf, rowShape, type Sql } from '../kernel/sql';
import { type ProjectedWire, projectWires, updateAnchors } from '../projection';

const NAME_ROW = rowShape('table_info', { name: 'text' });
const COUNT_ROW = rowShape('topic wires', { n: 'number' });

/**
 * Keeps D1 in step with the topic (src/projection/): Wires are projected
 * within `PROJECT_EVERY_MS` of their arrival (read models need not wait for
 * consensus), with their anchors if they are on HCS by then, else once they
 * are. `projected` per row (0 none, 1 Wire, 2 Wire and anchor) makes both
 * steps durable: a failed D1 write is simply retried by the next alarm, and
 * re-projecting is harmless.
 */
const BATCH = 500;
/**
 * How long new Wires and anchors gather before one D1 write carries them. On
 * the stand-in a Wire is anchored ~50-100 ms after it arrives, so most are
 * written once, anchor included, instead of once on arrival and once more
 * for the anchor: at 20 Wires/s that was 20 D1 batches a second, ~3 ms of
 * workerd CPU per Wire (measured by switching projection off). Well inside
 * the 1 s lag target.
 */
export const PROJECT_EVERY_MS = 150;

/** What a projection run reads of a topic's Wire: its body and anchor, not its HCS message. */
const PROJECTED_COLUMNS = {
  pos: 'number',
  wire_id: 'text',
  stream_id: 'text',
  body: 'text',
  hcs_sequence_number: 'number?',
  consensus_timestamp: 'text?',
} as const;
const PROJECTED_ROW = rowShape('topic wires', PROJECTED_COLUMNS);
type ProjectedRow = RowOf<typeof PROJECTED_COLUMNS>;
const { body: _body, ...ANCHOR_COLUMNS } = PROJECTED_COLUMNS;
const ANCHOR_ROW = rowShape('topic wires', ANCHOR_COLUMNS);

/** Wires D1 has not seen (walks `wires_projection_fresh`; test/workers/topic-query-plans.test.ts). */
export const FRESH_QUERY = `SELECT ${Object.keys(PROJECTED_COLUMNS).join(', ')} FROM wires
  WHERE projected = 0 ORDER BY pos LIMIT ?`;
/** Wires D1 has without their anchor, now anchored (walks `wires_projection_anchored`). */
export const ANCHORED_QUERY = `SELECT ${Object.keys(ANCHOR_COLUMNS).join(', ')} FROM wires
  WHERE projected = 1 AND hcs_sequence_number IS NOT NULL ORDER BY pos LIMIT ?`;
const FRESH = fixed(FRESH_QUERY);
const ANCHORED = fixed(ANCHORED_QUERY);

export class TopicProjection {
  constructor(private readonly sql: Sql) {
    const columns = parseRows(NAME_ROW, sql`PRAGMA table_info(wires)`).map((c) => c.name);
    if (!columns.includes('projected')) {
      sql`ALTER TABLE wires ADD COLUMN projected INTEGER NOT NULL DEFAULT 0`;
    }
    // Two partial indexes, one per question, each holding only the rows that
    // answer it. SQLite uses a partial index only when the query repeats its
    // WHERE terms verbatim. The single `projected < 2` index these replace
    // also held every Wire projected but not yet anchored, so whenever
    // anchoring ran behind, each run walked that whole backlog row by row.
    sql`DROP INDEX IF EXISTS wires_unprojected`;
    sql`CREATE INDEX IF NOT EXISTS wires_projection_fresh ON wires (pos) WHERE projected = 0`;
    sql`CREATE INDEX IF NOT EXISTS wires_projection_anchored ON wires (pos)
      WHERE projected = 1 AND hcs_sequence_number IS NOT NULL`;
  }

  /** Why the last run failed, for `GET /v1/topics`; null once a run succeeds. */
  lastError: string | null = null;
  #running: Promise<boolean> | null = null;
  #again = false;
  #later: Promise<boolean> | null = null;

  /**
   * Projects within `PROJECT_EVERY_MS`: every call until then joins the same
   * run. Resolves as `soon` does once that run is over.
   */
  later(db: D1Database, hcsTopicId: () => string | null): Promise<boolean> {
    this.#later ??= new Promise((resolve) => setTimeout(resolve, PROJECT_EVERY_MS)).then(() => {
      this.#later = null;
      return this.soon(db, hcsTopicId);
    });
    return this.#later;
  }

  /** How many of this topic's Wires D1 lacks (walks the small partial index, not every Wire). */
  unprojected(): number {
    return (
      firstRow(COUNT_ROW, this.sql`SELECT COUNT(*) AS n FROM wires WHERE projected = 0`)?.n ?? 0
    );
  }

  /** Whether D1 lacks a Wire or an anchor this topic holds. */
  pending(): boolean {
    return this.sql(FRESH, 1).length > 0 || this.sql(ANCHORED, 1).length > 0;
  }

  /**
   * Projects now (`later` calls it once its gathering window is over): the
   * read models need not wait for consensus, which takes seconds on a real
   * network (lag target ≤ 1 s). One run at a time (two at once would write
   * the same rows to D1 twice); a call during a run asks for one more.
   * Resolves to true when work is left, including after a failure, which the
   * next alarm retries.
   */
  soon(db: D1Database, hcsTopicId: () => string | null): Promise<boolean> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        let more = false;
        do {
          this.#again = false;
          more = await this.run(db, hcsTopicId());
        } while (this.#again || more);
        this.lastError = null;
        return false;
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
        console.warn('projection failed; the next alarm retries it', error);
        return true;
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  /** Projects what D1 does not have yet; true if more is left. */
  async run(db: D1Database, hcsTopicId: string | null): Promise<boolean> {
    const fresh = parseRows(PROJECTED_ROW, this.sql(FRESH, BATCH));
    if (fresh.length > 0) {
      await projectWires(
        db,
        fresh.map((r) => projectedWire(r, hcsTopicId)),
      );
      // As selected: a Wire anchored during the D1 write was projected without
      // its anchor, so it stays at 1 and the anchor step below picks it up.
      const withAnchor = fresh.filter((r) => r.hcs_sequence_number !== null).map((r) => r.pos);
      const without = fresh.filter((r) => r.hcs_sequence_number === null).map((r) => r.pos);
      this.#mark(withAnchor, 2);
      this.#mark(without, 1);
    }
    const anchored = parseRows(ANCHOR_ROW, this.sql(ANCHORED, BATCH));
    if (anchored.length > 0 && hcsTopicId !== null) {
      await updateAnchors(
        db,
        anchored.map((r) => ({
          wire_id: r.wire_id,
          stream_id: r.stream_id,
          hcs_topic_id: hcsTopicId,
          hcs_sequence_number: r.hcs_sequence_number ?? 0,
          consensus_timestamp: r.consensus_timestamp ?? '',
        })),
      );
      this.#mark(
        anchored.map((r) => r.pos),
        2,
      );
    }
    return fresh.length === BATCH || anchored.length === BATCH;
  }

  /** One statement per batch, not per row. */
  #mark(positions: number[], projected: 1 | 2): void {
    if (positions.length === 0) return;
    this.sql`UPDATE wires SET projected = ${projected}
      WHERE pos IN (SELECT value FROM json_each(${JSON.stringify(positions)}))`;
  }
}

function projectedWire(row: ProjectedRow, hcsTopicId: string | null): ProjectedWire {
  const wire = JSON.parse(row.body) as ProjectedWire;
  if (row.hcs_sequence_number === null) return wire;
  return {
    ...wire,
    hcs_topic_id: hcsTopicId,
    hcs_sequence_number: row.hcs_sequence_number,
    consensus_timestamp: row.consensus_timestamp,
  };
}
