import { firstRow, parseRows, rowShape } from '../kernel/sql';
import { catchUp } from './catch-up';
import type { RebuildSource } from './mirror-source';
import { deleteUnfoldable } from './model-sql';
import { reducers as allReducers } from './models';
import { anchorsOf } from './project-wires';
import { newRebuild, type RebuildState, type Report } from './rebuild-state';
import type { ModelName } from './reducer';
import { StreamFolder } from './stream-folder';
import {
  anchorWireEvents,
  insertWireEvents,
  refreshWireEvents,
  rememberTopics,
  toWireEventRow,
  WIRE_EVENT_COLUMNS,
  wiresOfRows,
} from './wire-events';

/** A `projection_meta` row: a model, the reducer version its rows were built with, its status. */
export const META_ROW = rowShape('projection_meta', {
  model: 'text',
  reducer_version: 'number',
  status: 'text',
});
const COUNT_ROW = rowShape('count', { n: 'number' });

export interface RebuildOptions {
  /** Models to rebuild; all of them (and wire_events) when omitted. */
  models?: ModelName[];
  onProgress?: Report;
  /** Injected clock (ms), for the speed figure only. */
  now?: () => number;
  /** Rows of wire_events read per query while folding (tests use small pages). */
  foldPage?: number;
}

/**
 * Models whose stored reducer_version differs from the code's, or that are
 * not live (a rebuild of them failed or was cut off).
 */
export async function staleModels(db: D1Database): Promise<ModelName[]> {
  const rows = await db.prepare('SELECT model, reducer_version, status FROM projection_meta').all();
  const stored = new Map(parseRows(META_ROW, rows.results).map((r) => [r.model, r]));
  return allReducers()
    .filter((r) => {
      const row = stored.get(r.model);
      return row?.reducer_version !== r.version || row.status !== 'ready';
    })
    .map((r) => r.model);
}

/**
 * Replays the HCS topics into D1 in one go (tests). The coordinator runs the
 * same steps in the `Rebuilder` Durable Object instead, so a rebuild outlives
 * the request that asked for it; like there, the state goes through JSON
 * between steps.
 */
export async function rebuild(
  db: D1Database,
  source: RebuildSource,
  options: RebuildOptions & { topics: string[] },
): Promise<RebuildState> {
  const now = options.now ?? (() => Date.now());
  let state = newRebuild(options.topics, options.models, now());
  const report: Report = (p) => options.onProgress?.(p);
  const step = { now, ...(options.foldPage ? { foldPage: options.foldPage } : {}) };
  try {
    while (state.phase !== 'done') {
      const next = await stepRebuild(db, source, state, report, step);
      state = JSON.parse(JSON.stringify(next)) as RebuildState;
    }
  } catch (error) {
    await markFailed(db, state.models);
    throw error;
  }
  return state;
}

/** Live projection keeps skipping these models until a rebuild succeeds. */
export async function markFailed(db: D1Database, models: ModelName[]) {
  await db
    .prepare(
      `UPDATE projection_meta SET status = 'failed' WHERE model IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(models))
    .run();
}

/**
 * One step of a rebuild: marking the models, one mirror page, one page of
 * folding, or the finish. Returns the state after it.
 *
 * Nothing is emptied first: readers keep the old rows until refolded ones
 * overwrite them, and `wire_events` keeps every row, so a Wire the mirror does
 * not show yet (it lags) is not lost. A full rebuild rewrites stored Wires from
 * their HCS copy and adds the ones D1 lacks; a rebuild of chosen models only
 * adds what D1 lacks. Then every stream is refolded from seq 1 while its Wires
 * are contiguous; rows no refold produces are removed; the models go back to
 * live, and a catch-up folds what arrived meanwhile (live projection skips a
 * model while it rebuilds).
 */
export async function stepRebuild(
  db: D1Database,
  source: RebuildSource,
  state: RebuildState,
  report: Report,
  { now = () => Date.now(), foldPage = FOLD_PAGE }: { now?: () => number; foldPage?: number } = {},
): Promise<RebuildState> {
  const s: RebuildState = structuredClone(state);
  switch (s.phase) {
    case 'begin': {
      await db.batch([
        rememberTopics(db, s.topics),
        db
          .prepare(
            `UPDATE projection_meta SET status = 'rebuilding' WHERE model IN (SELECT value FROM json_each(?1))`,
          )
          .bind(JSON.stringify(s.models)),
      ]);
      // Reported once the batch is in, so a retried step does not say it twice.
      await report({ phase: 'start', models: s.models, full: s.full, topics: s.topics });
      s.phase = 'read';
      return s;
    }
    case 'read': {
      const topic = s.topics[s.topic];
      if (topic === undefined) return startFolding(db, s);
      const page = await source.page(topic, s.cursor);
      const sealed = page.wires.find((w) => w.sealed);
      if (sealed) throw new Error(`${topic} message ${sealed.hcs_sequence_number}: sealed, no key`);
      const statements: D1PreparedStatement[] = [];
      for (let j = 0; j < page.wires.length; j += 200) {
        const rows = page.wires.slice(j, j + 200).map(toWireEventRow);
        statements.push(...insertWireEvents(db, rows));
        // A Wire stored before its anchor was reported gets it from HCS.
        if (s.full) statements.push(refreshWireEvents(db, rows));
        else statements.push(...anchorWireEvents(db, anchorsOf(page.wires.slice(j, j + 200))));
      }
      if (statements.length > 0) await db.batch(statements);
      s.cursor = page.cursor;
      s.read += page.wires.length;
      s.skipped += page.skipped;
      for (const refusal of page.refused ?? [])
        await report({ phase: 'refused', topic, ...refusal });
      s.refused = (s.refused ?? 0) + (page.refused?.length ?? 0);
      const counts = s.topicCounts;
      counts.messages += page.messages;
      counts.wires += page.wires.length;
      counts.pages++;
      s.mirrorEnd[topic] = page.cursor.after;
      const line = { phase: 'read' as const, topic, ...counts, skipped: s.skipped };
      const { pages: _p, ...shown } = line;
      if (!page.more) {
        await report(shown);
        s.topic++;
        s.cursor = { after: 0, pending: [] };
        s.topicCounts = { messages: 0, wires: 0, pages: 0 };
      } else if (counts.pages % 20 === 0) {
        await report(shown);
      }
      return s;
    }
    case 'fold': {
      const reducers = allReducers().filter((r) => s.models.includes(r.model));
      const folder = new StreamFolder(db, reducers, s.folder);
      const page = await db
        .prepare(
          `SELECT ${WIRE_EVENT_COLUMNS.join(', ')} FROM wire_events
           WHERE (stream_id, stream_seq) > (?1, ?2) ORDER BY stream_id, stream_seq LIMIT ?3`,
        )
        .bind(s.foldAfter[0], s.foldAfter[1], foldPage)
        .all();
      const wires = wiresOfRows(page.results);
      for (const wire of wires) folder.add(wire);
      const last = wires.at(-1);
      if (last) s.foldAfter = [last.stream_id, last.stream_seq];
      const finished = wires.length < foldPage;
      await folder.flush(finished);
      s.folder = folder.state();
      await report({
        phase: 'write',
        streams: folder.streams,
        streams_total: s.streamsTotal,
        wires: folder.wires,
      });
      if (finished) s.phase = 'finish';
      return s;
    }
    case 'finish':
      return finish(db, s);
    case 'settle':
      return settle(db, s, report, now);
    case 'done':
      return s;
  }
}

async function startFolding(db: D1Database, s: RebuildState): Promise<RebuildState> {
  const total = await db.prepare('SELECT COUNT(DISTINCT stream_id) AS n FROM wire_events').first();
  s.streamsTotal = total ? COUNT_ROW.parse(total).n : 0;
  s.phase = 'fold';
  return s;
}

/** Removes the rows no refold produced and puts the models back to live. */
async function finish(db: D1Database, s: RebuildState): Promise<RebuildState> {
  const reducers = allReducers().filter((r) => s.models.includes(r.model));
  await db.batch([
    ...reducers.flatMap((r) => deleteUnfoldable(db, r)),
    db
      .prepare(
        `UPDATE projection_meta SET status = 'ready', reducer_version = json_extract(?1, '$.' || model)
         WHERE model IN (SELECT value FROM json_each(?2))`,
      )
      .bind(
        JSON.stringify(Object.fromEntries(reducers.map((r) => [r.model, r.version]))),
        JSON.stringify(s.models),
      ),
  ]);
  s.phase = 'settle';
  return s;
}

/** Folds what HCS does not have yet (or arrived meanwhile), and resets the watermark. */
async function settle(
  db: D1Database,
  s: RebuildState,
  report: Report,
  now: () => number,
): Promise<RebuildState> {
  const behind = await catchUp(db);
  const [, ahead] = await db.batch<Record<string, unknown>>([
    db.prepare(
      `UPDATE projection_meta SET
         watermark = (SELECT COUNT(*) FROM wire_events),
         last_received_at = (SELECT MAX(received_at) FROM wire_events)
       WHERE model = 'wire_events'`,
    ),
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM wire_events w JOIN json_each(?1) e
           ON w.hcs_topic_id = e.key AND w.hcs_sequence_number > e.value`,
      )
      .bind(JSON.stringify(s.mirrorEnd)),
  ]);
  await report({ phase: 'catch-up', wires: behind });
  const seconds = (now() - s.startedAt) / 1000;
  await report({
    phase: 'done',
    models: s.models,
    topics: s.topics.length,
    streams: s.streamsTotal,
    wires: s.read,
    skipped: s.skipped,
    refused: s.refused ?? 0,
    ahead_of_mirror: firstRow(COUNT_ROW, ahead?.results)?.n ?? 0,
    seconds,
    wires_per_second: seconds > 0 ? Math.round(s.read / seconds) : s.read,
  });
  s.phase = 'done';
  return s;
}

/** Rows of wire_events read per query while folding. */
const FOLD_PAGE = 2000;
