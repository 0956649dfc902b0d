import { parseRows, rowShape } from '../kernel/sql';
import { foldedSeqOf, rowsOf, selectRows, writeRows } from './model-sql';
import { modelNames, reducers } from './models';
import { applyWire, type ModelName, owns, type Reducer } from './reducer';
import type { AnchorUpdate, BaseRow, ProjectedWire } from './types';
import {
  anchorWireEvents,
  insertWireEvents,
  selectStreamTail,
  selectWaitingAfter,
  toWireEventRow,
  wiresOfRows,
} from './wire-events';

/** Wires per D1 round trip; each batch is one transaction. */
const CHUNK = 200;
/**
 * Rounds a chunk takes at most to fold the Wires another caller stored
 * meanwhile (`projectChunk`'s `left`); one more round settles each race.
 */
const ROUNDS = 4;

export interface ProjectionOutcome {
  /** Wires new to `wire_events` (the watermark moved by this much). */
  inserted: number;
  /** Rows written per read model. */
  rows: Record<ModelName, number>;
}

/** A stream with stored Wires a live model can fold now: from `folded + 1` on. */
const LEFT_ROW = rowShape('unfolded stream', { stream_id: 'text', folded: 'number' });
type Left = ReturnType<typeof LEFT_ROW.parse>;

/**
 * Projects accepted Wires into D1: `wire_events` plus every read model, in
 * one batch (one transaction) per chunk, so a Wire becomes visible in all
 * tables at once. Safe to call again with the same Wires, in any grouping.
 * A Wire that arrives before its predecessor waits in `wire_events` for the
 * call that brings the predecessor; two callers projecting one stream at the
 * same time (its Wires on two topics) each fold what the other stored.
 */
export async function projectWires(
  db: D1Database,
  wires: readonly ProjectedWire[],
): Promise<ProjectionOutcome> {
  const total: ProjectionOutcome = {
    inserted: 0,
    rows: Object.fromEntries(modelNames().map((m) => [m, 0])),
  };
  for (let i = 0; i < wires.length; i += CHUNK) {
    let chunk = wires.slice(i, i + CHUNK);
    for (let round = 0; chunk.length > 0 && round < ROUNDS; round++) {
      const outcome = await projectChunk(db, chunk);
      total.inserted += outcome.inserted;
      for (const model of Object.keys(outcome.rows)) {
        total.rows[model] = (total.rows[model] ?? 0) + (outcome.rows[model] ?? 0);
      }
      chunk = outcome.left.length > 0 ? await storedTails(db, outcome.left) : [];
    }
  }
  return total;
}

/** The stored Wires of each stream from where its models stopped. */
async function storedTails(db: D1Database, left: readonly Left[]): Promise<ProjectedWire[]> {
  const results = await db.batch<Record<string, unknown>>(
    left.map((l) => selectStreamTail(db, l.stream_id, l.folded + 1)),
  );
  return results.flatMap((r) => wiresOfRows(r.results));
}

/**
 * Of `streamIds`, those whose next Wire for some live model (`active`) is
 * stored but not folded: run last in the write's transaction, it sees every
 * write committed before. A stream's Wires can travel on several topics (one
 * per correlation), and their TopicObjects project at the same time: each
 * reads the rows before the other's write lands, so the Wire each stored
 * after the other's read is in `wire_events` and folded by neither. The
 * later of the two writes sees it here.
 */
function selectUnfolded(
  db: D1Database,
  streamIds: readonly string[],
  active: readonly Reducer<BaseRow>[],
): D1PreparedStatement | null {
  if (active.length === 0 || streamIds.length === 0) return null;
  const folded = active.map((r) => foldedSeqOf(r, 'j.value')).join(', ');
  return db
    .prepare(
      `SELECT b.stream_id, b.folded FROM (
         SELECT j.value AS stream_id, MIN(${folded}, 9e18) AS folded FROM json_each(?1) j) b
       WHERE EXISTS (SELECT 1 FROM wire_events w
         WHERE w.stream_id = b.stream_id AND w.stream_seq = b.folded + 1)`,
    )
    .bind(JSON.stringify(streamIds));
}

/** Groups Wires by stream, each list sorted by stream_seq without repeats. */
export function groupByStream<W extends ProjectedWire>(wires: readonly W[]): Map<string, W[]> {
  const groups = new Map<string, Map<number, W>>();
  for (const wire of wires) {
    const group = groups.get(wire.stream_id) ?? new Map<number, W>();
    if (!group.has(wire.stream_seq)) group.set(wire.stream_seq, wire);
    groups.set(wire.stream_id, group);
  }
  const sorted = new Map<string, W[]>();
  for (const [stream, group] of groups) {
    sorted.set(
      stream,
      [...group.values()].sort((a, b) => a.stream_seq - b.stream_seq),
    );
  }
  return sorted;
}

async function projectChunk(
  db: D1Database,
  wires: readonly ProjectedWire[],
): Promise<ProjectionOutcome & { left: Left[] }> {
  const byStream = groupByStream(wires);
  const streamIds = [...byStream.keys()];
  const after = [...byStream].map(([s, list]) => ({ s, after: list.at(-1)?.stream_seq ?? 0 }));
  const [metaResult, waitingResult, ...rowResults] = await db.batch<Record<string, unknown>>([
    db.prepare(`SELECT model FROM projection_meta WHERE status <> 'ready'`),
    selectWaitingAfter(db, after),
    ...reducers().map((r) => selectRows(db, r, streamIds)),
  ]);
  const waiting = wiresOfRows(waitingResult?.results ?? []);
  if (waiting.length > 0) {
    for (const [s, list] of groupByStream([...waiting, ...wires])) byStream.set(s, list);
  }
  // A model being rebuilt (or whose rebuild failed) is left to the rebuild,
  // which catches up at its end.
  const rebuilding = new Set((metaResult?.results ?? []).map((r) => String(r.model)));
  const active = reducers().filter((r) => !rebuilding.has(r.model));
  const current = new Map<ModelName, Map<string, BaseRow>>();
  reducers().forEach((r, i) => {
    const rows = rowsOf(r, rowResults[i]?.results ?? []);
    current.set(r.model, new Map(rows.map((row) => [row.stream_id, row])));
  });

  await fillGaps(db, byStream, active, current);

  const statements: D1PreparedStatement[] = [];
  const eventRows = wires.map(toWireEventRow);
  statements.push(...insertWireEvents(db, eventRows));
  const anchors = anchorsOf(wires);
  if (anchors.length > 0) statements.push(...anchorWireEvents(db, anchors));

  const rowsWritten: ProjectionOutcome['rows'] = Object.fromEntries(
    modelNames().map((m) => [m, 0]),
  );
  for (const reducer of active) {
    const rows = evolveAll(reducer, byStream, current.get(reducer.model) ?? new Map());
    if (rows.length === 0) continue;
    rowsWritten[reducer.model] = rows.length;
    statements.push(...writeRows(db, reducer, rows));
  }
  const unfolded = selectUnfolded(db, [...byStream.keys()], active);
  if (unfolded) statements.push(unfolded);
  const results = await db.batch<Record<string, unknown>>(statements);
  const left = unfolded ? parseRows(LEFT_ROW, results.at(-1)?.results ?? []) : [];
  return { inserted: results[0]?.meta.changes ?? 0, rows: rowsWritten, left };
}

/**
 * When a stream's Wires start past what a model has folded (a missed or
 * reordered delivery, or a model that was being rebuilt), prepends the
 * missing Wires from `wire_events`.
 */
async function fillGaps(
  db: D1Database,
  byStream: Map<string, ProjectedWire[]>,
  active: readonly Reducer<BaseRow>[],
  current: Map<ModelName, Map<string, BaseRow>>,
): Promise<void> {
  const gaps: { streamId: string; from: number }[] = [];
  for (const [streamId, list] of byStream) {
    const owners = active.filter((r) => owns(r, streamId));
    if (owners.length === 0) continue;
    const from = Math.min(
      ...owners.map((r) => (current.get(r.model)?.get(streamId)?.last_seq ?? 0) + 1),
    );
    if ((list[0]?.stream_seq ?? from) > from) gaps.push({ streamId, from });
  }
  if (gaps.length === 0) return;
  const results = await db.batch<Record<string, unknown>>(
    gaps.map((g) => selectStreamTail(db, g.streamId, g.from)),
  );
  gaps.forEach((gap, i) => {
    const stored = wiresOfRows(results[i]?.results ?? []);
    const merged = groupByStream([...stored, ...(byStream.get(gap.streamId) ?? [])]);
    byStream.set(gap.streamId, merged.get(gap.streamId) ?? []);
  });
}

/** Folds each stream's contiguous Wires into the model's rows; returns changed rows. */
function evolveAll(
  reducer: Reducer<BaseRow>,
  byStream: Map<string, ProjectedWire[]>,
  rows: Map<string, BaseRow>,
): BaseRow[] {
  const changed: BaseRow[] = [];
  for (const [streamId, list] of byStream) {
    if (!owns(reducer, streamId)) continue;
    const before = rows.get(streamId) ?? null;
    let row = before;
    for (const wire of list) {
      const next = (row?.last_seq ?? 0) + 1;
      if (wire.stream_seq < next) continue;
      if (wire.stream_seq > next) break; // a gap: wait for the missing Wire
      row = applyWire(reducer, row, wire);
    }
    if (row !== null && row !== before) changed.push(row);
  }
  return changed;
}

export function anchorsOf(wires: readonly ProjectedWire[]): AnchorUpdate[] {
  const anchors: AnchorUpdate[] = [];
  for (const w of wires) {
    if (w.hcs_topic_id && w.hcs_sequence_number != null && w.consensus_timestamp) {
      anchors.push({
        wire_id: w.wire_id,
        stream_id: w.stream_id,
        hcs_topic_id: w.hcs_topic_id,
        hcs_sequence_number: w.hcs_sequence_number,
        consensus_timestamp: w.consensus_timestamp,
      });
    }
  }
  return anchors;
}

/**
 * Records where Wires landed on HCS. Wires not projected yet are skipped:
 * the anchoring loop projects before it anchors, and a rebuild takes the
 * anchor from the mirror anyway.
 */
export async function updateAnchors(db: D1Database, anchors: readonly AnchorUpdate[]) {
  for (let i = 0; i < anchors.length; i += CHUNK) {
    await db.batch(anchorWireEvents(db, anchors.slice(i, i + CHUNK)));
  }
}
