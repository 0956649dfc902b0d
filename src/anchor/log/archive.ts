import type { Hash } from './merkle';
import { decodeBundle, decodeHashes, leafTiles, TILE_WIDTH, type Tile, tilePath } from './tiles';

/**
 * A log-mode topic's archive in R2 (`LOG_ARCHIVE`): the C2SP tlog-tiles
 * resources of `tiles.ts` under `topics/<hcs topic id>/`, written by the
 * TopicObject (`topic/log-archive.ts`), served read-only by
 * `GET /v1/topics/{id}/log/…` and read back by a rebuild, which trusts none
 * of it until the checkpoints on HCS vouch for it.
 */
export const archiveKey = (hcsTopicId: string, path: string) => `topics/${hcsTopicId}/${path}`;

/** Reads one topic's archive the way a tlog-tiles client does. */
export class ArchiveReader {
  constructor(
    private readonly bucket: R2Bucket,
    private readonly topicId: string,
  ) {}

  /** The leaf hashes of leaves [from, to) in the tree of `to` leaves; null where a tile is missing or malformed. */
  async leafHashes(from: number, to: number): Promise<(Hash | null)[]> {
    const out: (Hash | null)[] = [];
    for (const tile of leafTiles(from, to, 0)) {
      const bytes = await this.#read(tile);
      const full = bytes && decodeHashes(bytes.slice(0, tile.width * 32), tile.width);
      out.push(...slice(tile, from, to, full));
    }
    return out;
  }

  /** The entries [from, to) in the tree of `to` leaves; null where a bundle is missing or malformed. */
  async entries(from: number, to: number): Promise<(Uint8Array | null)[]> {
    const out: (Uint8Array | null)[] = [];
    for (const tile of leafTiles(from, to, 'entries')) {
      const bytes = await this.#read(tile);
      const entries = bytes && decodeBundle(bytes);
      const fits = entries && entries.length >= tile.width ? entries.slice(0, tile.width) : null;
      out.push(...slice(tile, from, to, fits));
    }
    return out;
  }

  /** A partial tile, else (it may have been replaced) the full one, as the spec lets clients do. */
  async #read(tile: Tile): Promise<Uint8Array | null> {
    const tries = tile.width < TILE_WIDTH ? [tile, { ...tile, width: TILE_WIDTH }] : [tile];
    for (const t of tries) {
      const object = await this.bucket.get(archiveKey(this.topicId, tilePath(t)));
      if (object) return new Uint8Array(await object.arrayBuffer());
    }
    return null;
  }
}

/** The part of a tile's items that falls in [from, to), or nulls for a tile that could not be read. */
function slice<T>(tile: Tile, from: number, to: number, items: T[] | null): (T | null)[] {
  const start = tile.index * TILE_WIDTH;
  const lo = Math.max(from, start) - start;
  const hi = Math.min(to, start + tile.width) - start;
  return items ? items.slice(lo, hi) : Array<T | null>(hi - lo).fill(null);
}
