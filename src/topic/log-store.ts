import type { Hash, SubtreeStore } from '../anchor/log/merkle';
import { firstRow, fixed, parseRows, type RowOf, rowShape, type Sql } from '../kernel/sql';
import type { AnchorRecord } from '../protocol';
import { fromBase64, toBase64 } from '../protocol/base64';
import type { AnchorQueue } from './mirror-confirm';
import { SENT_COLUMNS, SENT_COLUMNS_SQL, type TopicLog } from './topic-log';

/**
 * A log-mode topic's SQLite (issue 31): the Merkle tree of its Wires as
 * complete-subtree hashes (`log_subtrees`, the `SubtreeStore` of
 * `anchor/log/merkle.ts`), which Wire is which leaf (`log_leaves`), and the
 * signed checkpoints (`log_checkpoints`), which the anchoring loop sends to
 * HCS as it sends Wires in envelope mode (an `AnchorQueue`).
 */
const HASH_ROW = rowShape('log_subtrees', { hash: 'text' });
const N_ROW = rowShape('log', { n: 'number?' });
const CHECKPOINT_COLUMNS = {
  pos: 'number',
  tree_size: 'number',
  message: 'text',
  ...SENT_COLUMNS,
  applied: 'number',
} as const;
const CREATE_CHECKPOINTS = `CREATE TABLE IF NOT EXISTS log_checkpoints (
  pos INTEGER PRIMARY KEY AUTOINCREMENT, tree_size INTEGER NOT NULL UNIQUE, message TEXT NOT NULL,
  ${SENT_COLUMNS_SQL}, applied INTEGER NOT NULL DEFAULT 0)`;
export type CheckpointRow = RowOf<typeof CHECKPOINT_COLUMNS>;
const CHECKPOINT_ROW = rowShape('log_checkpoints', CHECKPOINT_COLUMNS);
const FRESH_LEAF_ROW = rowShape('topic wires', { pos: 'number', message: 'text' });
const MESSAGE_ROW = rowShape('topic wires', { message: 'text' });
const UTF8 = new TextEncoder();
const HASH_OF_SEQ_ROW = rowShape('log_checkpoints', { running_hash: 'text?' });

/** Subtree hashes remembered in memory (cleared when full). */
const RECENT = 4096;
/** Leaf bytes remembered in memory for the archive's entry bundles: the newest, up to this many bytes. */
const RECENT_LEAF_BYTES = 1 << 20;

export class SqlSubtrees implements SubtreeStore {
  /**
   * The hashes written lately: adding a leaf reads its left siblings and a
   * checkpoint the tree's right edge, all written moments before. Answering
   * those from memory saved a SELECT and a base64 decode per leaf.
   */
  #recent = new Map<string, Hash>();
  /** Hashes `put` since the last `flush`: written in one statement, not one per hash. */
  #pending: [number, number, string][] = [];

  constructor(private readonly sql: Sql) {
    sql`CREATE TABLE IF NOT EXISTS log_subtrees (level INTEGER NOT NULL, idx INTEGER NOT NULL,
      hash TEXT NOT NULL, PRIMARY KEY (level, idx)) WITHOUT ROWID`;
  }

  get(level: number, index: number): Hash | undefined {
    const known = this.#recent.get(`${level}:${index}`);
    if (known !== undefined) return known;
    this.flush();
    const row = firstRow(
      HASH_ROW,
      this.sql`SELECT hash FROM log_subtrees WHERE level = ${level} AND idx = ${index}`,
    );
    return row ? fromBase64(row.hash) : undefined;
  }

  /** Remembers a hash; it is stored at the next `flush` (or read that needs it). */
  put(level: number, index: number, hash: Hash): void {
    this.#pending.push([level, index, toBase64(hash)]);
    if (this.#recent.size >= RECENT) this.#recent.clear();
    this.#recent.set(`${level}:${index}`, hash);
  }

  /** Stores the hashes put since the last flush, in one statement. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const rows = JSON.stringify(this.#pending);
    this.#pending = [];
    this.sql`INSERT OR REPLACE INTO log_subtrees (level, idx, hash)
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
      FROM json_each(${rows})`;
  }

  /** Forgets what was put since the last flush (a batch that failed half-way). */
  discard(): void {
    this.#pending = [];
    this.#recent.clear();
  }
}

/** Which Wire (its `pos` in `wires`) is which leaf; the tree's size is their count. */
export class LogLeaves {
  constructor(private readonly sql: Sql) {
    sql`CREATE TABLE IF NOT EXISTS log_leaves (leaf INTEGER PRIMARY KEY, pos INTEGER NOT NULL UNIQUE)`;
  }

  size(): number {
    return firstRow(N_ROW, this.sql`SELECT MAX(leaf) + 1 AS n FROM log_leaves`)?.n ?? 0;
  }

  /** Wires the coordinator anchors (not HCS-first ones) that are not leaves yet, in topic order. */
  fresh(limit: number): { pos: number; message: string }[] {
    return parseRows(
      FRESH_LEAF_ROW,
      this.sql`SELECT pos, message FROM wires
        WHERE pos > (SELECT COALESCE(MAX(pos), 0) FROM log_leaves)
        AND origin = 'coordinator' AND hcs_sequence_number IS NULL ORDER BY pos LIMIT ${limit}`,
    );
  }

  /**
   * The newest leaves' bytes, as `grow` encoded them for their hashes: the
   * archive bundles the leaves of the last tile or two at each checkpoint, and
   * reading them back (a join, a UTF-8 encode each) was its largest cost.
   */
  #bytes = new Map<number, Uint8Array>();
  #bytesHeld = 0;

  /**
   * Leaves `add`ed since the last `flush`, as [leaf, pos]. Reads do not see
   * them: a batch joins the tree whole, after its subtree hashes (`grow`).
   */
  #pending: [number, number][] = [];

  /** Leaf `leaf` is the Wire at `pos`, whose canonical JSON is `bytes`; stored at `flush`. */
  add(leaf: number, pos: number, bytes: Uint8Array): void {
    this.#pending.push([leaf, pos]);
    const had = this.#bytes.get(leaf);
    this.#bytes.set(leaf, bytes);
    this.#bytesHeld += bytes.byteLength - (had?.byteLength ?? 0);
    for (const [old, held] of this.#bytes) {
      if (this.#bytesHeld <= RECENT_LEAF_BYTES) break;
      this.#bytes.delete(old);
      this.#bytesHeld -= held.byteLength;
    }
  }

  /** Stores the leaves added since the last flush, in one statement. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const rows = JSON.stringify(this.#pending);
    this.#pending = [];
    this.sql`INSERT OR REPLACE INTO log_leaves (leaf, pos)
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${rows})`;
  }

  /** Forgets the leaves added since the last flush (a batch that failed half-way). */
  discard(): void {
    for (const [leaf] of this.#pending) {
      this.#bytesHeld -= this.#bytes.get(leaf)?.byteLength ?? 0;
      this.#bytes.delete(leaf);
    }
    this.#pending = [];
  }

  /** The leaf bytes of leaves [from, to), in order: from memory when it holds them all. */
  bytes(from: number, to: number): Uint8Array[] {
    const held: Uint8Array[] = [];
    for (let leaf = from; leaf < to; leaf++) {
      const bytes = this.#bytes.get(leaf);
      if (!bytes) return this.messages(from, to).map((m) => UTF8.encode(m));
      held.push(bytes);
    }
    return held;
  }

  leafOf(pos: number): number | null {
    return (
      firstRow(N_ROW, this.sql`SELECT leaf AS n FROM log_leaves WHERE pos = ${pos}`)?.n ?? null
    );
  }

  /** When the Wire at leaf `leaf` reached the topic (ms). */
  acceptedAt(leaf: number): number | null {
    return (
      firstRow(
        N_ROW,
        this.sql`SELECT w.accepted_at AS n FROM log_leaves l JOIN wires w ON w.pos = l.pos
          WHERE l.leaf = ${leaf}`,
      )?.n ?? null
    );
  }

  /** The leaf bytes (the Wires' canonical JSON) of leaves [from, to), in order. */
  messages(from: number, to: number): string[] {
    return parseRows(
      MESSAGE_ROW,
      this.sql`SELECT w.message FROM log_leaves l JOIN wires w ON w.pos = l.pos
        WHERE l.leaf >= ${from} AND l.leaf < ${to} ORDER BY l.leaf`,
    ).map((r) => r.message);
  }

  /** The `pos` of leaves [from, to). */
  positions(from: number, to: number): number[] {
    return parseRows(
      N_ROW,
      this
        .sql`SELECT pos AS n FROM log_leaves WHERE leaf >= ${from} AND leaf < ${to} ORDER BY leaf`,
    ).flatMap((r) => (r.n === null ? [] : [r.n]));
  }
}

/** The signed checkpoints, in order: what the anchoring loop submits in log mode. */
export class Checkpoints implements AnchorQueue {
  constructor(
    private readonly sql: Sql,
    private readonly wires: TopicLog,
  ) {
    sql(fixed(CREATE_CHECKPOINTS));
  }

  add(treeSize: number, note: string): void {
    this.sql`INSERT INTO log_checkpoints (tree_size, message) VALUES (${treeSize}, ${note})`;
  }

  last(): CheckpointRow | null {
    return firstRow(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints ORDER BY pos DESC LIMIT 1`,
    );
  }

  /** Signed checkpoints of more than `treeSize` leaves, oldest first (what the archive lacks). */
  after(treeSize: number, limit: number): CheckpointRow[] {
    return parseRows(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints WHERE tree_size > ${treeSize}
        ORDER BY tree_size LIMIT ${limit}`,
    );
  }

  /** The first confirmed checkpoint whose tree holds leaf `leaf`. */
  covering(leaf: number): CheckpointRow | null {
    return firstRow(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints WHERE tree_size > ${leaf}
        AND hcs_sequence_number IS NOT NULL ORDER BY tree_size LIMIT 1`,
    );
  }

  /** The confirmed checkpoint of this tree size, if there is one. */
  ofSize(treeSize: number): CheckpointRow | null {
    return firstRow(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints WHERE tree_size = ${treeSize}
        AND hcs_sequence_number IS NOT NULL`,
    );
  }

  /** Confirmed checkpoints whose anchors their Wires do not have yet, each with the size before it. */
  unapplied(): { row: CheckpointRow; from: number }[] {
    const rows = parseRows(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints WHERE applied = 0
        AND hcs_sequence_number IS NOT NULL ORDER BY pos`,
    );
    return rows.map((row) => ({
      row,
      from:
        firstRow(
          N_ROW,
          this.sql`SELECT tree_size AS n FROM log_checkpoints WHERE pos < ${row.pos}
            ORDER BY pos DESC LIMIT 1`,
        )?.n ?? 0,
    }));
  }

  markApplied(pos: number): void {
    this.sql`UPDATE log_checkpoints SET applied = 1 WHERE pos = ${pos}`;
  }

  unanchored(limit: number): CheckpointRow[] {
    return parseRows(
      CHECKPOINT_ROW,
      this.sql`SELECT * FROM log_checkpoints WHERE hcs_sequence_number IS NULL
        ORDER BY pos LIMIT ${limit}`,
    );
  }

  recordTransactionIds(pos: number, ids: string[] | null): void {
    this.sql`UPDATE log_checkpoints SET tx_ids = ${ids === null ? null : JSON.stringify(ids)}
      WHERE pos = ${pos}`;
  }

  recordAnchor(
    pos: number,
    a: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>,
    now: number,
  ): void {
    this.sql`UPDATE log_checkpoints SET hcs_sequence_number = ${a.hcs_sequence_number},
      consensus_timestamp = ${a.consensus_timestamp}, running_hash = ${a.running_hash},
      hcs_chunks = ${a.hcs_chunks}, anchored_at = ${now}
      WHERE pos = ${pos} AND hcs_sequence_number IS NULL`;
  }

  /** The topic's highest HCS sequence number: a checkpoint's, or a Wire's from before log mode. */
  highestSequenceNumber(): number {
    const own =
      firstRow(N_ROW, this.sql`SELECT MAX(hcs_sequence_number) AS n FROM log_checkpoints`)?.n ?? 0;
    return Math.max(own, this.wires.highestSequenceNumber());
  }

  runningHashAt(seq: number): string | null {
    const own = firstRow(
      HASH_OF_SEQ_ROW,
      this.sql`SELECT running_hash FROM log_checkpoints WHERE hcs_sequence_number = ${seq}`,
    );
    return own?.running_hash ?? this.wires.runningHashAt(seq);
  }
}
