import { parseRows, type RowOf, rowShape } from '../kernel/sql';
import { canonicalJson, storedCanonicalJson, type Wire } from '../protocol';
import type { Signature } from '../protocol/signature';
import { WIRE_FIELDS } from '../protocol/wire11-fast-path';
import type { AnchorUpdate, ProjectedWire } from './types';

/** SQL for the raw `wire_events` table (migrations/0001) and its watermark. */

const COLUMNS = [
  // Every member of the envelope but `wire` (always 1.1), then what projection adds.
  ...WIRE_FIELDS.filter((f) => f !== 'wire'),
  'sig',
  'received_at',
  'hcs_topic_id',
  'hcs_sequence_number',
  'consensus_timestamp',
] as const;

const SHAPE = {
  wire_id: 'text',
  stream_id: 'text',
  stream_seq: 'number',
  correlation_id: 'text?',
  causation_id: 'text?',
  type: 'text',
  sender: 'text',
  ts: 'text',
  /** Canonical JSON (sorted keys): the same text whether it came live or from HCS. */
  payload: 'text',
  /** The agent's signature as it sent it (canonical JSON; migrations/0011), NULL when unsigned. */
  sig: 'text?',
  received_at: 'text',
  hcs_topic_id: 'text?',
  hcs_sequence_number: 'number?',
  consensus_timestamp: 'text?',
} as const;

export type WireEventRow = RowOf<typeof SHAPE>;
const WIRE_EVENT_ROW = rowShape('wire_events', SHAPE);

/** The Wires stored rows hold (D1 `results`, checked column by column). */
export function wiresOfRows(results: readonly Record<string, unknown>[]): ProjectedWire[] {
  return parseRows(WIRE_EVENT_ROW, results).map(wireOfRow);
}

export const WIRE_EVENT_COLUMNS: readonly string[] = COLUMNS;

export function toWireEventRow(wire: ProjectedWire): WireEventRow {
  return {
    wire_id: wire.wire_id,
    stream_id: wire.stream_id,
    stream_seq: wire.stream_seq,
    correlation_id: wire.correlation_id,
    causation_id: wire.causation_id,
    type: wire.type,
    sender: wire.sender,
    ts: wire.ts,
    payload: storedCanonicalJson(wire.payload),
    sig: wire.sig === undefined ? null : canonicalJson(wire.sig),
    received_at: wire.received_at,
    hcs_topic_id: wire.hcs_topic_id ?? null,
    hcs_sequence_number: wire.hcs_sequence_number ?? null,
    consensus_timestamp: wire.consensus_timestamp ?? null,
  };
}

/** The Wire a stored row holds (what reducers fold). */
export function wireOfRow(row: WireEventRow): ProjectedWire {
  return {
    wire: '1.1',
    wire_id: row.wire_id,
    stream_id: row.stream_id,
    stream_seq: row.stream_seq,
    correlation_id: row.correlation_id,
    causation_id: row.causation_id,
    type: row.type,
    sender: row.sender,
    ts: row.ts,
    payload: JSON.parse(row.payload) as Wire['payload'],
    ...(row.sig === null ? {} : { sig: JSON.parse(row.sig) as Signature }),
    received_at: row.received_at,
    hcs_topic_id: row.hcs_topic_id,
    hcs_sequence_number: row.hcs_sequence_number,
    consensus_timestamp: row.consensus_timestamp,
  };
}

/**
 * Inserts new Wires (a known `(stream_id, wire_id)` or `(stream_id, stream_seq)` is left
 * alone) and then advances the watermark by exactly the rows inserted:
 * `changes()` is the previous statement's count, and a D1 batch runs its
 * statements in order in one transaction.
 */
export function insertWireEvents(db: D1Database, rows: WireEventRow[]) {
  const extract = COLUMNS.map((c) => `json_extract(value, '$.${c}')`).join(', ');
  const insert = db
    .prepare(
      `INSERT OR IGNORE INTO wire_events (${COLUMNS.join(', ')})
       SELECT ${extract} FROM json_each(?1)`,
    )
    .bind(JSON.stringify(rows));
  const latest =
    rows
      .map((r) => r.received_at)
      .sort()
      .at(-1) ?? '';
  const watermark = db
    .prepare(
      `UPDATE projection_meta SET watermark = watermark + changes(),
         last_received_at = MAX(COALESCE(last_received_at, ''), ?1)
       WHERE model = 'wire_events'`,
    )
    .bind(latest);
  return [insert, watermark];
}

/** Fills the HCS columns of Wires already projected, and remembers their topics. */
export function anchorWireEvents(db: D1Database, anchors: AnchorUpdate[]) {
  const json = JSON.stringify(anchors);
  return [
    db
      .prepare(
        `UPDATE wire_events SET hcs_topic_id = a.topic, hcs_sequence_number = a.seq,
           consensus_timestamp = a.at
         FROM (SELECT json_extract(value, '$.wire_id') AS id,
                      json_extract(value, '$.stream_id') AS stream,
                      json_extract(value, '$.hcs_topic_id') AS topic,
                      json_extract(value, '$.hcs_sequence_number') AS seq,
                      json_extract(value, '$.consensus_timestamp') AS at
               FROM json_each(?1)) AS a
         WHERE wire_events.stream_id = a.stream AND wire_events.wire_id = a.id`,
      )
      .bind(json),
    rememberTopics(
      db,
      anchors.map((a) => a.hcs_topic_id),
    ),
  ];
}

/**
 * Rewrites stored Wires from their HCS copy (content and anchor), matched on
 * `(stream_id, wire_id, stream_seq)`. `received_at` stays: HCS does not carry
 * the coordinator's receive time.
 */
export function refreshWireEvents(db: D1Database, rows: WireEventRow[]) {
  const replaced = COLUMNS.filter(
    (c) => c !== 'wire_id' && c !== 'stream_id' && c !== 'stream_seq' && c !== 'received_at',
  );
  return db
    .prepare(
      `UPDATE wire_events SET ${replaced.map((c) => `${c} = a.${c}`).join(', ')}
       FROM (SELECT ${COLUMNS.map((c) => `json_extract(value, '$.${c}') AS ${c}`).join(', ')}
             FROM json_each(?1)) AS a
       WHERE wire_events.stream_id = a.stream_id AND wire_events.wire_id = a.wire_id
         AND wire_events.stream_seq = a.stream_seq`,
    )
    .bind(JSON.stringify(rows));
}

export function rememberTopics(db: D1Database, topics: string[]) {
  return db
    .prepare(
      `INSERT OR IGNORE INTO projection_topics (topic_id)
       SELECT DISTINCT value FROM json_each(?1) WHERE value IS NOT NULL`,
    )
    .bind(JSON.stringify([...new Set(topics)]));
}

/** Wires of one stream from `fromSeq` on, in order (to fill a gap). */
export function selectStreamTail(db: D1Database, streamId: string, fromSeq: number) {
  return db
    .prepare(
      `SELECT ${COLUMNS.join(', ')} FROM wire_events
       WHERE stream_id = ?1 AND stream_seq >= ?2 ORDER BY stream_seq`,
    )
    .bind(streamId, fromSeq);
}

/**
 * Stored Wires that follow each stream's newest incoming Wire but are not
 * folded yet: they arrived early, before a gap that this call may fill.
 * Usually empty; the `(stream_id, stream_seq)` index keeps it cheap.
 */
export function selectWaitingAfter(db: D1Database, after: { s: string; after: number }[]) {
  return db
    .prepare(
      `SELECT ${COLUMNS.map((c) => `w.${c}`).join(', ')}
       FROM json_each(?1) j JOIN wire_events w
         ON w.stream_id = json_extract(j.value, '$.s')
        AND w.stream_seq > json_extract(j.value, '$.after')
       WHERE w.stream_seq > COALESCE(
         (SELECT s.last_seq FROM stream_state s WHERE s.stream_id = w.stream_id), 0)
       ORDER BY w.stream_id, w.stream_seq`,
    )
    .bind(JSON.stringify(after));
}
