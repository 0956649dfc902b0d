import type { RebuildSource } from './mirror-source';
import { clearRows, upsertRows } from './model-sql';
import { MODEL_NAMES, REDUCERS } from './models';
import { anchorsOf, groupByStream, projectWires } from './project-wires';
import { applyWire, type ModelName } from './reducer';
import type { BaseRow, ProjectedWire } from './types';
import {
  anchorWireEvents,
  insertWireEvents,
  rememberTopics,
  toWireEventRow,
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
}

/** Models whose stored reducer_version differs from the code's. */
export async function staleModels(db: D1Database): Promise<ModelName[]> {
  const rows = await db
    .prepare('SELECT model, reducer_version FROM projection_meta')
    .all<{ model: string; reducer_version: number }>();
  const stored = new Map(rows.results.map((r) => [r.model, r.reducer_version]));
  return REDUCERS.filter((r) => stored.get(r.model) !== r.version).map((r) => r.model);
}

const WRITE_STREAMS = 100;

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
    return await replay(db, source, models, full, report, now, started);
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

  // Read every topic; a stream's Wires may sit on more than one topic.
  const all: ProjectedWire[] = [];
  let skipped = 0;
  for (const topic of source.topics) {
    let messages = 0;
    let wires = 0;
    let pages = 0;
    for await (const page of source.read(topic)) {
      messages += page.messages;
      wires += page.wires.length;
      skipped += page.skipped;
      all.push(...page.wires);
      if (++pages % 20 === 0) await report({ phase: 'read', topic, messages, wires, skipped });
    }
    await report({ phase: 'read', topic, messages, wires, skipped });
  }

  const byStream = groupByStream(all);
  const streamIds = [...byStream.keys()].sort();
  let written = 0;
  for (let i = 0; i < streamIds.length; i += WRITE_STREAMS) {
    const slice = streamIds.slice(i, i + WRITE_STREAMS);
    const statements: D1PreparedStatement[] = [];
    const events: WireEventRow[] = [];
    const anchored: ProjectedWire[] = [];
    const rows = new Map<ModelName, BaseRow[]>();
    for (const streamId of slice) {
      const wires = byStream.get(streamId) ?? [];
      events.push(...wires.map(toWireEventRow));
      anchored.push(...wires);
      for (const reducer of reducers) {
        if (!reducer.owns(streamId)) continue;
        const row = foldPrefix(reducer, wires);
        if (row) rows.set(reducer.model, [...(rows.get(reducer.model) ?? []), row]);
      }
    }
    for (let j = 0; j < events.length; j += 200) {
      statements.push(...insertWireEvents(db, events.slice(j, j + 200)));
      // A Wire kept as unanchored (its anchor not reported yet) gets it from HCS.
      statements.push(...anchorWireEvents(db, anchorsOf(anchored.slice(j, j + 200))));
    }
    for (const reducer of reducers) {
      const list = rows.get(reducer.model) ?? [];
      for (let j = 0; j < list.length; j += 200) {
        statements.push(upsertRows(db, reducer, list.slice(j, j + 200)));
      }
    }
    if (statements.length > 0) await db.batch(statements);
    written += events.length;
    await report({
      phase: 'write',
      streams: Math.min(i + WRITE_STREAMS, streamIds.length),
      streams_total: streamIds.length,
      wires: written,
    });
  }

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
    streams: streamIds.length,
    wires: all.length,
    skipped,
    seconds,
    wires_per_second: seconds > 0 ? Math.round(all.length / seconds) : all.length,
  };
  await report(done);
  return done;
}

/** Folds a stream's Wires from seq 1 while they are contiguous. */
function foldPrefix(reducer: (typeof REDUCERS)[number], wires: ProjectedWire[]): BaseRow | null {
  let row: BaseRow | null = null;
  for (const wire of wires) {
    if (wire.stream_seq !== (row?.last_seq ?? 0) + 1) break;
    row = applyWire(reducer, row, wire);
  }
  return row;
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
