import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendLeaf,
  edgeRoot,
  extendEdge,
  leafHash,
  rootAt,
  type SubtreeStore,
} from '../../src/anchor/log/merkle';
import {
  decodeBundle,
  encodeBundle,
  parseTilePath,
  type Tile,
  tilePath,
  tilesBetween,
} from '../../src/anchor/log/tiles';

/** The C2SP tlog-tiles layout of the log archive (src/anchor/log/tiles.ts), against the spec's own examples. */
describe('tlog-tiles paths', () => {
  it('writes the index in 3-digit groups, x-prefixed but the last, as the spec does', () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 'entries', index: 5, width: 17 })).toBe('tile/entries/005.p/17');
    expect(tilePath({ level: 2, index: 0, width: 1 })).toBe('tile/2/000.p/1');
  });

  it('reads back every path it writes, and nothing else', () => {
    const tile = fc.record({
      level: fc.oneof(fc.constant('entries' as const), fc.integer({ min: 0, max: 63 })),
      index: fc.integer({ min: 0, max: 2 ** 40 }),
      width: fc.integer({ min: 1, max: 256 }),
    });
    fc.assert(
      fc.property(tile, (t: Tile) => {
        expect(parseTilePath(tilePath(t))).toEqual(t);
      }),
    );
    for (const bad of [
      'tile/0/12',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/0/000.p/07',
      'tile/64/000',
      'tile/00/000',
      'tile/0/x000/005',
      'tile/0/001/002',
      'tile/hashes/000',
      'checkpoint',
    ])
      expect([bad, parseTilePath(bad)]).toEqual([bad, null]);
  });
});

describe('which tiles a tree has', () => {
  it('gives a tree of 70,000 leaves the tiles the spec lists for it', () => {
    const tiles = tilesBetween(0, 70_000);
    const count = (level: Tile['level'], full: boolean) =>
      tiles.filter((t) => t.level === level && (t.width === 256) === full).length;
    expect([count(0, true), tiles.find((t) => t.level === 0 && t.width < 256)?.width]).toEqual([
      273, 112,
    ]);
    expect(count('entries', true)).toBe(273);
    expect(tiles.filter((t) => t.level === 1).map((t) => t.width)).toEqual([256, 17]);
    expect(tiles.filter((t) => t.level === 2).map((t) => t.width)).toEqual([1]);
    expect(tiles.some((t) => typeof t.level === 'number' && t.level > 2)).toBe(false);
  });

  it('gives a tree of 256 leaves a full level-0 tile and a level-1 tile of width 1', () => {
    expect(tilesBetween(0, 256).map(tilePath)).toEqual([
      'tile/entries/000',
      'tile/0/000',
      'tile/1/000.p/1',
    ]);
  });

  it('names, for a grown tree, only the tiles that are new or wider', () => {
    expect(tilesBetween(250, 300).map(tilePath)).toEqual([
      'tile/entries/000',
      'tile/0/000',
      'tile/entries/001.p/44',
      'tile/0/001.p/44',
      'tile/1/000.p/1',
    ]);
    expect(tilesBetween(300, 300)).toEqual([]);
  });
});

describe("a tree's right edge", () => {
  it('gives the RFC 9162 root of any prefix, extended in any steps', async () => {
    const store = new Map<string, Uint8Array>();
    const tree: SubtreeStore = {
      get: (l, i) => store.get(`${l}/${i}`),
      put: (l, i, h) => void store.set(`${l}/${i}`, h),
    };
    const leaves = await Promise.all(
      Array.from({ length: 70 }, (_, i) => leafHash(new TextEncoder().encode(`leaf ${i}`))),
    );
    for (const [i, leaf] of leaves.entries()) await appendLeaf(tree, i, leaf);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 70 }), { maxLength: 5 }),
        async (cuts) => {
          const sizes = [...new Set([...cuts, 70])].sort((a, b) => a - b);
          let edge: Uint8Array[] = [];
          let size = 0;
          for (const next of sizes) {
            edge = await extendEdge(edge, size, leaves.slice(size, next));
            size = next;
            expect(await edgeRoot(edge)).toEqual(await rootAt(tree, size));
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('entry bundles', () => {
  it('round-trip entries as 2-byte big-endian length prefixes, and refuse a cut one', () => {
    const entries = ['{"a":1}', '', 'x'.repeat(300)].map((s) => new TextEncoder().encode(s));
    const bytes = encodeBundle(entries);
    expect([...bytes.slice(0, 2)]).toEqual([0, 7]);
    expect(decodeBundle(bytes)).toEqual(entries);
    expect(decodeBundle(bytes.slice(0, -1))).toBeNull();
    expect(() => encodeBundle([new Uint8Array(65_536)])).toThrow(/65535/);
  });
});
