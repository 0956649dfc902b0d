import { parseRows, rowShape, type Sql } from '../kernel/sql';
import type { AnchorRecord, AnchorStatus } from '../protocol';
import type { AnchorUpdate } from './anchored-news';
import type { FollowSource, WireSource } from './subscribers';
import type { StoredWire } from './wire-log';

/**
 * Where the stream's Wires landed on HCS, as reported back by their
 * TopicObject (`markAnchored`). Served as the `anchor` field of every Wire
 * and pushed to WebSocket subscribers as `{"kind":"anchored"}` frames
 * (`Subscribers.announceAnchored`).
 */
const ANCHOR_COLUMNS = {
  topic: 'text',
  hcs_topic_id: 'text',
  hcs_sequence_number: 'number',
  consensus_timestamp: 'text',
  running_hash: 'text',
  hcs_chunks: 'number',
} as const;
const ANCHOR_ROW = rowShape('anchors', { seq: 'number', ...ANCHOR_COLUMNS });

/** An anchor with its Wire's id (`anchoredAfter`). */
const ANCHORED_ROW = rowShape('anchors', { seq: 'number', wire_id: 'text', ...ANCHOR_COLUMNS });
const SEQ_ROW = rowShape('anchors', { seq: 'number' });
const PENDING: AnchorStatus = Object.freeze({ status: 'pending' });

export interface AnchoredWire extends StoredWire {
  anchor: AnchorStatus;
}

const MAX_ROW = rowShape('anchors', { s: 'number?' });

export class Anchors {
  /** The highest seq with an anchor: Wires after it are pending without asking SQLite. */
  #maxSeq: number;

  constructor(private readonly sql: Sql) {
    sql`CREATE TABLE IF NOT EXISTS anchors (
      seq INTEGER PRIMARY KEY,
      topic TEXT NOT NULL,
      hcs_topic_id TEXT NOT NULL,
      hcs_sequence_number INTEGER NOT NULL,
      consensus_timestamp TEXT NOT NULL,
      running_hash TEXT NOT NULL,
      hcs_chunks INTEGER NOT NULL
    )`;
    this.#maxSeq = parseRows(MAX_ROW, sql`SELECT MAX(seq) AS s FROM anchors`)[0]?.s ?? 0;
  }

  /**
   * Records anchors; returns those that were new (to announce). One statement
   * for the whole batch: a TopicObject reports its Wires' anchors in batches,
   * and a statement per Wire was a tenth of the stream's SQLite work per append.
   */
  record(topic: string, anchors: AnchorRecord[]): AnchorRecord[] {
    if (anchors.length === 0) return [];
    const inserted = new Set(
      parseRows(
        SEQ_ROW,
        this.sql`INSERT OR IGNORE INTO anchors (seq, topic, hcs_topic_id, hcs_sequence_number,
          consensus_timestamp, running_hash, hcs_chunks)
          SELECT json_extract(value, '$.stream_seq'), ${topic}, json_extract(value, '$.hcs_topic_id'),
            json_extract(value, '$.hcs_sequence_number'), json_extract(value, '$.consensus_timestamp'),
            json_extract(value, '$.running_hash'), json_extract(value, '$.hcs_chunks')
          FROM json_each(${JSON.stringify(anchors)})
          RETURNING seq`,
      ).map((r) => r.seq),
    );
    for (const seq of inserted) if (seq > this.#maxSeq) this.#maxSeq = seq;
    // Once each: a seq repeated within the batch was inserted only once.
    return anchors.filter((a) => inserted.delete(a.stream_seq));
  }

  /** Adds the `anchor` field. */
  decorate(wires: StoredWire[]): AnchoredWire[] {
    const first = wires[0]?.stream_seq;
    const last = wires.at(-1)?.stream_seq;
    if (first === undefined || last === undefined) return [];
    // Just appended (live fan-out): none of them can have an anchor yet.
    if (first > this.#maxSeq) return wires.map((wire) => ({ ...wire, anchor: PENDING }));
    const rows = new Map(
      parseRows(
        ANCHOR_ROW,
        this.sql`SELECT * FROM anchors WHERE seq BETWEEN ${first} AND ${last}`,
      ).map((r) => [r.seq, r]),
    );
    return wires.map((wire) => {
      const row = rows.get(wire.stream_seq);
      const anchor: AnchorStatus = row
        ? {
            status: 'anchored',
            topic: row.topic,
            hcs_topic_id: row.hcs_topic_id,
            hcs_sequence_number: row.hcs_sequence_number,
            consensus_timestamp: row.consensus_timestamp,
            running_hash: row.running_hash,
            hcs_chunks: row.hcs_chunks,
          }
        : { status: 'pending' };
      return { ...wire, anchor };
    });
  }

  /** A WireSource whose Wires carry their anchor (for live subscribers). */
  source(log: WireSource): FollowSource {
    return {
      get lastSeq() {
        return log.lastSeq;
      },
      readAfter: (afterSeq, limit) => this.decorate(log.readAfter(afterSeq, limit)),
      anchoredAfter: (afterSeq, through, limit) => this.anchoredAfter(afterSeq, through, limit),
    };
  }

  /**
   * The anchored Wires among `afterSeq + 1 .. through` (at most `limit`), for a
   * resuming subscriber: the anchors by their key, each Wire's id from the
   * stream's `wires` table (WireLog's, in the same SQLite), no body read.
   */
  anchoredAfter(afterSeq: number, through: number, limit: number): AnchorUpdate[] {
    return parseRows(
      ANCHORED_ROW,
      this.sql`SELECT a.*, w.wire_id FROM anchors a JOIN wires w ON w.seq = a.seq
        WHERE a.seq > ${afterSeq} AND a.seq <= ${through} ORDER BY a.seq LIMIT ${limit}`,
    ).map(({ seq, wire_id, ...row }) => ({
      wire_id,
      stream_seq: seq,
      anchor: { status: 'anchored', ...row },
    }));
  }
}
