import type { Hash } from './merkle';

/**
 * The C2SP tlog-tiles layout (https://c2sp.org/tlog-tiles): a log as static
 * resources under a prefix.
 *
 *   tile/<L>/<N>[.p/<W>]        hash tiles: 32-byte hashes side by side; the
 *                               i-th hash of tile N at level L is the Merkle
 *                               hash of leaves [(N·256+i)·256^L, (N·256+i+1)·256^L)
 *                               — the subtree hash at level 8L, index N·256+i
 *   tile/entries/<N>[.p/<W>]    entry bundles: each leaf as a big-endian
 *                               uint16 length, then its bytes
 *   checkpoint                  the latest signed checkpoint (a C2SP note)
 *
 * `<N>` is written as zero-padded 3-digit path elements, all but the last
 * prefixed with `x` (1234067 → `x001/x234/067`); `.p/<W>` marks a partial tile
 * of W (1–255) hashes, the rightmost one of a tree whose size is not a
 * multiple of the tile's span. Pure: no IO.
 */

export const TILE_WIDTH = 256;
/** Merkle levels one tile level spans. */
export const TILE_HEIGHT = 8;
/** An entry's length is a uint16: the longest leaf (anchored envelope) a tile can hold. */
export const MAX_ENTRY_BYTES = 0xffff;

/** A hash tile (`level` 0–63) or an entry bundle (`level` 'entries'), `width` 1–256. */
export interface Tile {
  level: number | 'entries';
  index: number;
  width: number;
}

function indexPath(index: number): string {
  const parts: string[] = [];
  let n = index;
  do {
    parts.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? `x${p}` : p)).join('/');
}

/** `tile/0/x001/234.p/7`, `tile/entries/000`: a tile's path under the log's prefix. */
export function tilePath(t: Tile): string {
  const partial = t.width < TILE_WIDTH ? `.p/${t.width}` : '';
  return `tile/${t.level}/${indexPath(t.index)}${partial}`;
}

const TILE_PATH = /^tile\/(entries|0|[1-9]\d?)\/((?:x\d{3}\/)*)(\d{3})(?:\.p\/([1-9]\d{0,2}))?$/;

/** The tile a path names, or null if it is not a tlog-tiles path. */
export function parseTilePath(path: string): Tile | null {
  const m = TILE_PATH.exec(path);
  if (!m) return null;
  const [, level = '', xs = '', last = '', width] = m;
  const digits = [
    ...xs
      .split('/')
      .filter(Boolean)
      .map((x) => x.slice(1)),
    last,
  ];
  // No leading zero elements: index 5 is `005`, never `x000/005`.
  if (digits.length > 1 && digits[0] === '000') return null;
  const index = Number(digits.join(''));
  const l = level === 'entries' ? 'entries' : Number(level);
  const w = width === undefined ? TILE_WIDTH : Number(width);
  if (!Number.isSafeInteger(index) || (typeof l === 'number' && l > 63)) return null;
  if (width !== undefined && w >= TILE_WIDTH) return null;
  return { level: l, index, width: w };
}

/** Leaves one hash of a tile at `level` covers: 256^level. */
const span = (level: number) => TILE_WIDTH ** level;

/**
 * The tiles a tree of `to` leaves has that a tree of `from` leaves lacks (or
 * has narrower): entry bundles and level-0 tiles first, then upwards. Empty
 * tiles do not exist.
 */
export function tilesBetween(from: number, to: number): Tile[] {
  const tiles: Tile[] = [];
  for (let level = 0; Math.floor(to / span(level)) > 0; level++) {
    const had = Math.floor(from / span(level));
    const has = Math.floor(to / span(level));
    if (has === had) continue;
    for (let index = Math.floor(had / TILE_WIDTH); index * TILE_WIDTH < has; index++) {
      const width = Math.min(TILE_WIDTH, has - index * TILE_WIDTH);
      if (level === 0) tiles.push({ level: 'entries', index, width });
      tiles.push({ level, index, width });
    }
  }
  return tiles;
}

/** The level-0 tiles (or entry bundles) holding leaves [from, to) of a tree of `to` leaves. */
export function leafTiles(from: number, to: number, level: 0 | 'entries'): Tile[] {
  const tiles: Tile[] = [];
  for (let index = Math.floor(from / TILE_WIDTH); index * TILE_WIDTH < to; index++)
    tiles.push({ level, index, width: Math.min(TILE_WIDTH, to - index * TILE_WIDTH) });
  return tiles;
}

/** The subtree (Merkle level, index) of the i-th hash of a hash tile. */
export function subtreeOf(t: Tile, i: number): [level: number, index: number] {
  return [(t.level as number) * TILE_HEIGHT, t.index * TILE_WIDTH + i];
}

export function encodeHashes(hashes: Hash[]): Uint8Array {
  const out = new Uint8Array(hashes.length * 32);
  hashes.forEach((h, i) => {
    out.set(h, i * 32);
  });
  return out;
}

/** A hash tile's hashes; null unless it is exactly `width` hashes long. */
export function decodeHashes(bytes: Uint8Array, width: number): Hash[] | null {
  if (bytes.byteLength !== width * 32) return null;
  return Array.from({ length: width }, (_, i) => bytes.slice(i * 32, (i + 1) * 32));
}

export function encodeBundle(entries: Uint8Array[]): Uint8Array {
  const size = entries.reduce((n, e) => n + 2 + e.byteLength, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const entry of entries) {
    if (entry.byteLength > MAX_ENTRY_BYTES)
      throw new RangeError(`a tlog-tiles entry holds at most 65535 bytes, not ${entry.byteLength}`);
    view.setUint16(at, entry.byteLength);
    out.set(entry, at + 2);
    at += 2 + entry.byteLength;
  }
  return out;
}

/** An entry bundle's entries; null if it is malformed (a length runs past the end). */
export function decodeBundle(bytes: Uint8Array): Uint8Array[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; ) {
    if (at + 2 > bytes.byteLength) return null;
    const size = view.getUint16(at);
    if (at + 2 + size > bytes.byteLength) return null;
    entries.push(bytes.slice(at + 2, at + 2 + size));
    at += 2 + size;
  }
  return entries;
}
