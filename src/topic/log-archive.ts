import { archiveKey } from '../anchor/log/archive';
import { noteOfMessage } from '../anchor/log/hcs27';
import {
  encodeBundle,
  encodeHashes,
  subtreeOf,
  TILE_WIDTH,
  type Tile,
  tilePath,
  tilesBetween,
} from '../anchor/log/tiles';
import type { TopicLogMode } from './log-mode';
import type { TopicLog } from './topic-log';

/** Checkpoints archived per call at most; more waiting makes the caller come back at once. */
const CHECKPOINTS_PER_CALL = 8;
const RETRY_MAX_MS = 30_000;
const UTF8 = new TextEncoder();

export interface ArchiveStatus {
  /** Leaves in R2 (the tree size of the last archived checkpoint). */
  archived_size: number;
  /** Why the last write to R2 failed; null once one succeeds. */
  last_error: string | null;
}

/**
 * Copies a log-mode topic's log to R2 as C2SP tlog-tiles (`anchor/log/tiles.ts`),
 * one signed checkpoint at a time: the entry bundles and hash tiles that tree
 * has and the previous one lacked, then `checkpoint`, then the cursor
 * (`archive_size` in the topic's SQLite) moves on. The archive is a copy:
 * the leaves stay in SQLite, so when R2 fails nothing is lost and nothing
 * waits — anchoring goes on, and the archive catches up from its cursor on a
 * later pass (with backoff). Each write is idempotent (same key, same bytes).
 */
export class LogArchiver {
  #failures = 0;
  #lastError: string | null = null;

  constructor(
    private readonly log: TopicLog,
    private readonly bucket: R2Bucket | undefined,
  ) {}

  status(): ArchiveStatus {
    return { archived_size: this.#size(), last_error: this.#lastError };
  }

  /**
   * Archives what the last pass signed. Returns when to come back (ms since
   * the epoch: now if more is waiting, later after a failure), or null.
   */
  async catchUp(mode: TopicLogMode, now: number): Promise<number | null> {
    const topicId = this.log.get('hcs_topic_id');
    if (!this.bucket || topicId === null) return null;
    const due = mode.checkpoints.after(this.#size(), CHECKPOINTS_PER_CALL + 1);
    try {
      for (const checkpoint of due.slice(0, CHECKPOINTS_PER_CALL)) {
        const from = this.#size();
        for (const tile of tilesBetween(from, checkpoint.tree_size))
          await this.#put(topicId, tilePath(tile), bytesOf(mode, tile));
        // tlog-tiles' `checkpoint` is the signed note, not its HCS-27 message.
        await this.#put(topicId, 'checkpoint', UTF8.encode(noteOfMessage(checkpoint.message)));
        this.log.set('archive_size', String(checkpoint.tree_size));
      }
    } catch (error) {
      this.#failures += 1;
      this.#lastError = error instanceof Error ? error.message : String(error);
      console.warn(`topic ${this.log.get('name')}: log archive behind`, this.#lastError);
      return now + Math.min(RETRY_MAX_MS, 500 * 2 ** this.#failures);
    }
    this.#failures = 0;
    this.#lastError = null;
    return due.length > CHECKPOINTS_PER_CALL ? now : null;
  }

  #size(): number {
    return Number(this.log.get('archive_size') ?? '0');
  }

  async #put(topicId: string, path: string, bytes: Uint8Array): Promise<void> {
    await this.bucket?.put(archiveKey(topicId, path), bytes);
  }
}

/** A tile's bytes from the topic's SQLite: its leaves' canonical JSON, or its subtree hashes. */
function bytesOf(mode: TopicLogMode, tile: Tile): Uint8Array {
  if (tile.level === 'entries') {
    const start = tile.index * TILE_WIDTH;
    const leaves = mode.leaves.bytes(start, start + tile.width);
    if (leaves.length !== tile.width) throw new Error(`the log lacks leaves of ${tilePath(tile)}`);
    return encodeBundle(leaves);
  }
  const hashes = Array.from({ length: tile.width }, (_, i) => {
    const [level, index] = subtreeOf(tile, i);
    const hash = mode.tree.get(level, index);
    if (!hash) throw new Error(`the log has no subtree hash at level ${level}, index ${index}`);
    return hash;
  });
  return encodeHashes(hashes);
}
