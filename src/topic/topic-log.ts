import {
  firstRow,
  fixed,
  parseRows,
  type RowOf,
  rebuildIfOutdated,
  rowShape,
  type Sql,
} from '../kernel/sql';
import type { AnchorRecord, StoredWire, Wire } from '../protocol';
import type { QueueRow } from './mirror-confirm';
import type { AnchoredRow } from './stub';

/**
 * The TopicObject's SQLite: Wires in arrival order (idempotent by stream and wire_id),
 * the transaction ids chosen for each before submission, and where each
 * landed on HCS. `meta` holds the topic's name, HCS id and listener offset.
 */
/**
 * Where one message of an `AnchorQueue` (mirror-confirm.ts) went on HCS: its
 * transaction ids, then its anchor. The topic's Wires have them, and in log
 * mode its checkpoints (log-store.ts).
 */
export const SENT_COLUMNS = {
  tx_ids: 'text?',
  hcs_sequence_number: 'number?',
  consensus_timestamp: 'text?',
  running_hash: 'text?',
  hcs_chunks: 'number?',
  anchored_at: 'number?',
} as const;
/** The same columns in SQL, for a new table (`wires` spells them out: its stored definition predates this). */
export const SENT_COLUMNS_SQL = Object.entries(SENT_COLUMNS)
  .map(([name, kind]) => `${name} ${kind.startsWith('number') ? 'INTEGER' : 'TEXT'}`)
  .join(', ');
const TOPIC_COLUMNS = {
  pos: 'number',
  wire_id: 'text',
  stream_id: 'text',
  stream_seq: 'number',
  message: 'text',
  body: 'text',
  accepted_at: 'number',
  ...SENT_COLUMNS,
  notified: 'number',
  origin: 'text',
} as const;
export type TopicRow = RowOf<typeof TOPIC_COLUMNS>;
/** A row of the topic's `wires`, checked column by column. */
export const TOPIC_ROW = rowShape('topic wires', TOPIC_COLUMNS);
/**
 * What the anchoring loop reads of a Wire (`QueueRow`): a search of an index
 * holding the unanchored rows, no scan (test/workers/topic-query-plans.test.ts).
 */
const QUEUE_COLUMNS = { pos: 'number', wire_id: 'text', tx_ids: 'text?', message: 'text' } as const;
const QUEUE_ROW = rowShape('topic wires', QUEUE_COLUMNS);
export const UNANCHORED_QUERY = `SELECT ${Object.keys(QUEUE_COLUMNS).join(', ')} FROM wires
  WHERE hcs_sequence_number IS NULL ORDER BY pos LIMIT ?`;
const UNANCHORED = fixed(UNANCHORED_QUERY);
const VALUE_ROW = rowShape('topic meta', { value: 'text' });
const HASH_ROW = rowShape('topic wires', { running_hash: 'text?' });
const MAX_ROW = rowShape('topic wires', { seq: 'number?' });
const COUNT_ROW = rowShape('topic wires', { total: 'number', anchored: 'number' });

/**
 * Anchored Wires not yet reported to their streams. The `+` keeps SQLite off
 * the `hcs_sequence_number` index: with it the planner scanned every Wire the
 * topic ever held on each anchoring pass (5 ms at 20,000 Wires, growing with
 * the topic) instead of walking the few rows of `wires_unnotified`.
 * test/workers/topic-query-plans.test.ts checks the plan.
 */
/** What a stream is told of its Wire's anchor: the row without the Wire's text. */
const ANCHOR_COLUMNS = {
  pos: 'number',
  wire_id: 'text',
  stream_id: 'text',
  stream_seq: 'number',
  hcs_sequence_number: 'number?',
  consensus_timestamp: 'text?',
  running_hash: 'text?',
  hcs_chunks: 'number?',
} as const;
export const UNNOTIFIED_QUERY = `SELECT ${Object.keys(ANCHOR_COLUMNS).join(', ')} FROM wires
  WHERE notified = 0 AND +hcs_sequence_number IS NOT NULL ORDER BY pos LIMIT ?`;
const UNNOTIFIED = fixed(UNNOTIFIED_QUERY);
export type AnchorRow = RowOf<typeof ANCHOR_COLUMNS>;
const ANCHOR_ROW = rowShape('topic wires', ANCHOR_COLUMNS);

export class TopicLog {
  constructor(
    private readonly sql: Sql,
    storage: DurableObjectStorage,
  ) {
    sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`;
    // A wire_id is unique within its stream only: two streams on one topic may
    // both carry a client-chosen "wire_1", and both must be anchored. Tables
    // made before that keyed on wire_id alone and silently dropped the second.
    const create = () => sql`CREATE TABLE IF NOT EXISTS wires (
      pos INTEGER PRIMARY KEY AUTOINCREMENT,
      wire_id TEXT NOT NULL,
      stream_id TEXT NOT NULL,
      stream_seq INTEGER NOT NULL,
      message TEXT NOT NULL,
      body TEXT NOT NULL,
      accepted_at INTEGER NOT NULL,
      tx_ids TEXT,
      hcs_sequence_number INTEGER,
      consensus_timestamp TEXT,
      running_hash TEXT,
      hcs_chunks INTEGER,
      anchored_at INTEGER,
      notified INTEGER NOT NULL DEFAULT 0,
      origin TEXT NOT NULL DEFAULT 'coordinator',
      UNIQUE (stream_id, wire_id)
    )`;
    rebuildIfOutdated(storage, 'wires', 'wire_id TEXT NOT NULL UNIQUE', create);
    create();
    sql`CREATE INDEX IF NOT EXISTS wires_unanchored ON wires (pos) WHERE hcs_sequence_number IS NULL`;
    sql`CREATE INDEX IF NOT EXISTS wires_unnotified ON wires (pos) WHERE notified = 0`;
    sql`CREATE INDEX IF NOT EXISTS wires_hcs_seq ON wires (hcs_sequence_number)`;
  }

  /** `meta` is written only through `set`, so reads come from memory after the first. */
  readonly #meta = new Map<string, string | null>();

  get(key: string): string | null {
    let value = this.#meta.get(key);
    if (value === undefined) {
      value =
        firstRow(VALUE_ROW, this.sql`SELECT value FROM meta WHERE key = ${key}`)?.value ?? null;
      this.#meta.set(key, value);
    }
    return value;
  }

  set(key: string, value: string): void {
    this.sql`INSERT OR REPLACE INTO meta (key, value) VALUES (${key}, ${value})`;
    this.#meta.set(key, value);
  }

  /** Stores Wires not seen before; returns how many were new. */
  accept(wires: StoredWire[], message: (w: Wire) => string, now: number): number {
    // One statement per Wire: a single INSERT … SELECT over json_each was
    // measured slower (SQLite re-parses the JSON row for every column).
    let added = 0;
    for (const wire of wires) {
      const { received_at: _r, ...envelope } = wire;
      const res = this.sql`INSERT OR IGNORE INTO wires
        (wire_id, stream_id, stream_seq, message, body, accepted_at)
        VALUES (${wire.wire_id}, ${wire.stream_id}, ${wire.stream_seq}, ${message(envelope)},
        ${JSON.stringify({ ...envelope, received_at: wire.received_at })}, ${now})
        RETURNING pos`;
      added += res.length;
    }
    return added;
  }

  /**
   * Stores a Wire an agent put on HCS directly, anchored where the mirror
   * showed it and already notified (its stream took it with the anchor).
   */
  acceptIngested(
    wire: Wire & { received_at: string },
    message: string,
    anchor: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>,
    now: number,
  ): void {
    this.sql`INSERT OR IGNORE INTO wires (wire_id, stream_id, stream_seq, message, body,
      accepted_at, hcs_sequence_number, consensus_timestamp, running_hash, hcs_chunks,
      anchored_at, notified, origin)
      VALUES (${wire.wire_id}, ${wire.stream_id}, ${wire.stream_seq}, ${message},
      ${JSON.stringify(wire)}, ${now}, ${anchor.hcs_sequence_number},
      ${anchor.consensus_timestamp}, ${anchor.running_hash}, ${anchor.hcs_chunks}, ${now},
      1, 'hcs-first')`;
  }

  /**
   * Wires not on HCS yet, oldest first: what the anchoring loop sends and
   * looks for. Every pass reads the Wires still in flight again, so only the
   * columns it uses are read (not `body`, the second copy of the Wire).
   */
  unanchored(limit: number): QueueRow[] {
    return parseRows(QUEUE_ROW, this.sql(UNANCHORED, limit));
  }

  unnotified(limit: number): AnchorRow[] {
    return parseRows(ANCHOR_ROW, this.sql(UNNOTIFIED, limit));
  }

  /** Wires an agent put on HCS directly, ingested where the mirror showed them (`seqs`). */
  ingestedAt(seqs: number[]): TopicRow[] {
    return parseRows(
      TOPIC_ROW,
      this.sql`SELECT * FROM wires WHERE origin = 'hcs-first'
        AND hcs_sequence_number IN (SELECT value FROM json_each(${JSON.stringify(seqs)}))`,
    );
  }

  byWire(streamId: string, wireId: string): TopicRow | null {
    return firstRow(
      TOPIC_ROW,
      this.sql`SELECT * FROM wires WHERE stream_id = ${streamId} AND wire_id = ${wireId}`,
    );
  }

  recordTransactionIds(pos: number, ids: string[] | null): void {
    this
      .sql`UPDATE wires SET tx_ids = ${ids === null ? null : JSON.stringify(ids)} WHERE pos = ${pos}`;
  }

  recordAnchor(
    pos: number,
    a: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>,
    now: number,
  ) {
    this.sql`UPDATE wires SET hcs_sequence_number = ${a.hcs_sequence_number},
      consensus_timestamp = ${a.consensus_timestamp}, running_hash = ${a.running_hash},
      hcs_chunks = ${a.hcs_chunks}, anchored_at = ${now}
      WHERE pos = ${pos} AND hcs_sequence_number IS NULL`;
  }

  /** One checkpoint's anchor for all its Wires (log mode), in one statement. */
  recordAnchors(
    positions: number[],
    a: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>,
    now: number,
  ): void {
    if (positions.length === 0) return;
    this.sql`UPDATE wires SET hcs_sequence_number = ${a.hcs_sequence_number},
      consensus_timestamp = ${a.consensus_timestamp}, running_hash = ${a.running_hash},
      hcs_chunks = ${a.hcs_chunks}, anchored_at = ${now}
      WHERE pos IN (SELECT value FROM json_each(${JSON.stringify(positions)}))
      AND hcs_sequence_number IS NULL`;
  }

  markNotified(positions: number[]): void {
    this
      .sql`UPDATE wires SET notified = 1 WHERE pos IN (SELECT value FROM json_each(${JSON.stringify(positions)}))`;
  }

  /** Anchored Wires by HCS sequence number, for `verify` and the proof endpoint. */
  /**
   * Anchored Wires after HCS message `afterSeq`: `limit` of them, and the rest
   * of the last message's (in log mode a checkpoint anchors many Wires).
   */
  anchoredAfter(afterSeq: number, limit: number): TopicRow[] {
    return parseRows(
      TOPIC_ROW,
      this.sql`SELECT * FROM wires WHERE hcs_sequence_number > ${afterSeq}
        AND hcs_sequence_number <= COALESCE((SELECT hcs_sequence_number FROM wires
          WHERE hcs_sequence_number > ${afterSeq} ORDER BY hcs_sequence_number
          LIMIT 1 OFFSET ${limit - 1}), ${Number.MAX_SAFE_INTEGER})
        ORDER BY hcs_sequence_number, pos`,
    );
  }

  /** The running hash recorded for HCS sequence number `seq`, if a Wire of this log has it. */
  runningHashAt(seq: number): string | null {
    return (
      firstRow(
        HASH_ROW,
        this.sql`SELECT running_hash FROM wires WHERE hcs_sequence_number = ${seq}`,
      )?.running_hash ?? null
    );
  }

  /** The highest HCS sequence number of a Wire in this log (0 if none). */
  highestSequenceNumber(): number {
    return firstRow(MAX_ROW, this.sql`SELECT MAX(hcs_sequence_number) AS seq FROM wires`)?.seq ?? 0;
  }

  counts(): { total: number; anchored: number } {
    const row = firstRow(
      COUNT_ROW,
      this.sql`SELECT COUNT(*) AS total, COUNT(hcs_sequence_number) AS anchored FROM wires`,
    );
    return { total: row?.total ?? 0, anchored: row?.anchored ?? 0 };
  }
}

/** The transaction ids stored for a Wire's chunks (none before it was given any). */
export function txIdsOf(row: Pick<TopicRow, 'tx_ids'>): string[] {
  return JSON.parse(row.tx_ids ?? '[]') as string[];
}

export function anchorOf(row: AnchorRow, hcsTopicId: string): AnchorRecord | null {
  if (row.hcs_sequence_number === null) return null;
  return {
    wire_id: row.wire_id,
    stream_id: row.stream_id,
    stream_seq: row.stream_seq,
    hcs_topic_id: hcsTopicId,
    hcs_sequence_number: row.hcs_sequence_number,
    consensus_timestamp: row.consensus_timestamp ?? '',
    running_hash: row.running_hash ?? '',
    hcs_chunks: row.hcs_chunks ?? 1,
  };
}

/** A row as the API shows it (`GET /v1/topics/{id}/anchors`, proofs). */
export function publicRow(row: TopicRow): AnchoredRow {
  const { wire_id, stream_id, stream_seq, message, hcs_sequence_number, consensus_timestamp } = row;
  return {
    wire_id,
    stream_id,
    stream_seq,
    message,
    hcs_sequence_number,
    consensus_timestamp,
    running_hash: row.running_hash,
    hcs_chunks: row.hcs_chunks,
    origin: row.origin,
  };
}
