import type { RebuildSource } from './mirror-source';
import { clearRows, upsertRows } from './model-sql';
import { MODEL_NAMES, REDUCERS } from './models';
import { anchorsOf, projectWires } from './project-wires';
import { applyWire, type ModelName } from './reducer';
import type { BaseRow, ProjectedWire } from './types';
import {
  anchorWireEvents,
  insertWireEvents,
  rememberTopics,
  toWireEventRow,
  WIRE_EVENT_COLUMNS,
  type WireEventRow,
  wireOfRow,
} from './wire-events';

/** What a rebuild reports while it runs (one line of NDJSON each). */
export type RebuildProgress =
  | { phase: 'start'; models: ModelName[]; full: boolean; topics: string[] }
  | { phase: 'read'; topic: string; messages: number; wires: number; skipped: number }
  | { phase: 'write'; streams: number; streams_total: number; wires: number }
  | { phase: 'catch-up'; wires: number }
  | {
      phase: 'done';
      models: ModelName[];
      topics: number;
      streams: number;
      wires: number;
      skipped: number;
      seconds: number;
      wires_per_second: number;
    };

export interface RebuildOptions {
  /** Models to rebuild; all of them (and wire_events) when omitted. */
  models?: ModelName[];
  onProgress?: (progress: RebuildProgress) => void | Promise<void>;
  /** Injected clock (ms), for the speed figure only. */
  now?: () => number;
  /** Rows of wire_events read per query while folding (tests use small pages). */
  foldPage?: number;
}

/** Models whose stored reducer_version differs from the code's. */
export async function staleModels(db: D1Database): Promise<ModelName[]> {
  const rows = await db
    .prepare('SELECT model, reducer_version FROM projection_meta')
    .all<{ model: string; reducer_version: number }>();
  const stored = new Map(rows.results.map((r) => [r.model, r.reducer_version]));
  return REDUCERS.filter((r) => stored.get(r.model) !== r.version).map((r) => r.model);
}

/**
 * Drops the derived tables and replays every topic in stream order (grouped
 * by stream_id, sorted by stream_seq). A full rebuild also rebuilds
 * `wire_events` from HCS, keeping only Wires not anchored yet (they are not
 * on HCS so far; the anchoring loop fills them in later). Rebuilding chosen
 * models leaves the others alone. While a model rebuilds, live projection
 * skips it; the closing catch-up folds whatever arrived meanwhile.
 */
export async function rebuild(db: D1Database, source: RebuildSource, options: RebuildOptions = {}) {
  const now = options.now ?? (() => Date.now());
  const started = now();
  const report = async (p: RebuildProgress) => {
    await options.onProgress?.(p);
  };
  const models = options.models ?? [...MODEL_NAMES];
  const full = options.models === undefined;
  await report({ phase: 'start', models, full, topics: source.topics });
  try {
    return await replay(db, source, models, full, report, now, started, options.foldPage);
  } catch (error) {
    // Live projection keeps skipping these models until a rebuild succeeds.
    await db
      .prepare(
        `UPDATE projection_meta SET status = 'failed' WHERE model IN (SELECT value FROM json_each(?1))`,
      )
      .bind(JSON.stringify(models))
      .run();
    throw error;
  }
}

async function replay(
  db: D1Database,
  source: RebuildSource,
  models: ModelName[],
  full: boolean,
  report: (p: RebuildProgress) => Promise<void>,
  now: () => number,
  started: number,
  foldPage = FOLD_PAGE,
): Promise<Extract<RebuildProgress, { phase: 'done' }>> {
  const reducers = REDUCERS.filter((r) => models.includes(r.model));
  await db.batch([rememberTopics(db, source.topics)]);

  const mark = db
    .prepare(
      `UPDATE projection_meta SET status = 'rebuilding' WHERE model IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(models));
  await db.batch([
    mark,
    ...reducers.map((r) => clearRows(db, r)),
    ...(full ? [db.prepare('DELETE FROM wire_events WHERE hcs_topic_id IS NOT NULL')] : []),
  ]);

  // Read every topic into wire_events page by page (a stream's Wires may sit
  // on more than one topic; a known (stream_id, stream_seq) is left alone),
  // so memory holds one page, never the whole history.
  let read = 0;
  let skipped = 0;
  for (const topic of source.topics) {
    let messages = 0;
    let wires = 0;
    let pages = 0;
    for await (const page of source.read(topic)) {
      messages += page.messages;
      wires += page.wires.length;
      skipped += page.skipped;
      read += page.wires.length;
      const statements: D1PreparedStatement[] = [];
      for (let j = 0; j < page.wires.length; j += 200) {
        const slice = page.wires.slice(j, j + 200);
        statements.push(...insertWireEvents(db, slice.map(toWireEventRow)));
        // A Wire kept as unanchored (its anchor not reported yet) gets it from HCS.
        statements.push(...anchorWireEvents(db, anchorsOf(slice)));
      }
      if (statements.length > 0) await db.batch(statements);
      if (++pages % 20 === 0) await report({ phase: 'read', topic, messages, wires, skipped });
    }
    await report({ phase: 'read', topic, messages, wires, skipped });
  }

  // Then fold every stream from seq 1 while contiguous, reading wire_events in
  // (stream_id, stream_seq) order a page at a time.
  const total = await db
    .prepare('SELECT COUNT(DISTINCT stream_id) AS n FROM wire_events')
    .first<{ n: number }>();
  const streamsTotal = total?.n ?? 0;
  const folder = new StreamFolder(db, reducers);
  let after: [string, number] = ['', 0];
  for (;;) {
    const page = await db
      .prepare(
        `SELECT ${WIRE_EVENT_COLUMNS.join(', ')} FROM wire_events
         WHERE (stream_id, stream_seq) > (?1, ?2) ORDER BY stream_id, stream_seq LIMIT ?3`,
      )
      .bind(after[0], after[1], foldPage)
      .all<WireEventRow>();
    for (const row of page.results) folder.add(wireOfRow(row));
    await folder.write(false);
    const last = page.results.at(-1);
    if (last) after = [last.stream_id, last.stream_seq];
    await report({
      phase: 'write',
      streams: folder.streams,
      streams_total: streamsTotal,
      wires: folder.wires,
    });
    if (page.results.length < foldPage) break;
  }
  await folder.write(true);

  // Back to live, then fold what HCS does not have yet (or arrived meanwhile).
  await db.batch([
    db
      .prepare(
        `UPDATE projection_meta SET status = 'ready', reducer_version = json_extract(?1, '$.' || model)
         WHERE model IN (SELECT value FROM json_each(?2))`,
      )
      .bind(
        JSON.stringify(Object.fromEntries(reducers.map((r) => [r.model, r.version]))),
        JSON.stringify(models),
      ),
  ]);
  const behind = await catchUp(db);
  await report({ phase: 'catch-up', wires: behind });
  await db
    .prepare(
      `UPDATE projection_meta SET
         watermark = (SELECT COUNT(*) FROM wire_events),
         last_received_at = (SELECT MAX(received_at) FROM wire_events)
       WHERE model = 'wire_events'`,
    )
    .run();

  const seconds = (now() - started) / 1000;
  const done: Extract<RebuildProgress, { phase: 'done' }> = {
    phase: 'done',
    models,
    topics: source.topics.length,
    streams: streamsTotal,
    wires: read,
    skipped,
    seconds,
    wires_per_second: seconds > 0 ? Math.round(read / seconds) : read,
  };
  await report(done);
  return done;
}

/** Rows of wire_events read per query while folding. */
const FOLD_PAGE = 2000;
/** Read-model rows written per upsert. */
const UPSERT_ROWS = 200;

type Reducer = (typeof REDUCERS)[number];

/**
 * Folds Wires arriving in (stream_id, stream_seq) order, one stream at a
 * time, each model from seq 1 while the Wires are contiguous (a gap waits for
 * the catch-up), and writes the finished rows in batches: memory holds one
 * stream's current rows and the batch, whatever the history's size.
 */
class StreamFolder {
  streams = 0;
  wires = 0;
  #stream: string | null = null;
  #rows = new Map<Reducer, BaseRow | null>();
  #pending = new Map<Reducer, BaseRow[]>();

  constructor(
    private readonly db: D1Database,
    private readonly reducers: readonly Reducer[],
  ) {}

  add(wire: ProjectedWire): void {
    if (wire.stream_id !== this.#stream) this.#next(wire.stream_id);
    this.wires++;
    for (const [reducer, row] of this.#rows) {
      if (wire.stream_seq !== (row?.last_seq ?? 0) + 1) {
        this.#finish(reducer, row);
        continue;
      }
      this.#rows.set(reducer, applyWire(reducer, row, wire));
    }
  }

  /** Writes full batches; with `all`, the current stream's rows and every partial batch too. */
  async write(all: boolean): Promise<void> {
    if (all) this.#next(null);
    const statements: D1PreparedStatement[] = [];
    for (const [reducer, rows] of this.#pending) {
      const cut = all ? rows.length : rows.length - (rows.length % UPSERT_ROWS);
      for (let j = 0; j < cut; j += UPSERT_ROWS) {
        statements.push(
          upsertRows(this.db, reducer, rows.slice(j, Math.min(j + UPSERT_ROWS, cut))),
        );
      }
      this.#pending.set(reducer, rows.slice(cut));
    }
    if (statements.length > 0) await this.db.batch(statements);
  }

  #next(streamId: string | null): void {
    for (const [reducer, row] of this.#rows) this.#finish(reducer, row);
    this.#rows.clear();
    this.#stream = streamId;
    if (streamId === null) return;
    this.streams++;
    for (const reducer of this.reducers) if (reducer.owns(streamId)) this.#rows.set(reducer, null);
  }

  /** The model's row for this stream is final: a gap, or the stream ended. */
  #finish(reducer: Reducer, row: BaseRow | null): void {
    this.#rows.delete(reducer);
    if (!row) return;
    const pending = this.#pending.get(reducer);
    if (pending) pending.push(row);
    else this.#pending.set(reducer, [row]);
  }
}

/**
 * Projects every stored Wire that some read model has not folded yet: the
 * tail not on HCS yet, Wires that arrived during the rebuild, or those after
 * a gap in a topic.
 */
export async function catchUp(db: D1Database): Promise<number> {
  const behind = await db
    .prepare(
      `SELECT w.* FROM wire_events w WHERE w.stream_seq > MIN(
         COALESCE((SELECT s.last_seq FROM stream_state s WHERE s.stream_id = w.stream_id), 0),
         CASE WHEN w.stream_id LIKE 'task:%'
           THEN COALESCE((SELECT t.last_seq FROM task_run_state t WHERE t.stream_id = w.stream_id), 0)
           ELSE 9e18 END,
         CASE WHEN w.stream_id LIKE 'agent:%'
           THEN COALESCE((SELECT a.last_seq FROM agent_runtime_state a WHERE a.stream_id = w.stream_id), 0)
           ELSE 9e18 END)
       ORDER BY w.stream_id, w.stream_seq`,
    )
    .all<WireEventRow>();
  const wires = behind.results.map(wireOfRow);
  if (wires.length > 0) await projectWires(db, wires);
  return wires.length;
}
