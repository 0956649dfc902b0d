import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendLeaf,
  consistencyProof,
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  rootAt,
  type SubtreeStore,
  sha256,
  splitPoint,
  verifyConsistency,
  verifyInclusion,
} from '../../src/anchor/log/merkle';

const hex = (h: Hash) => Buffer.from(h).toString('hex');
const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

// RFC 6962's test vectors, as certificate-transparency and Go's tlog test with them.
const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

function memoryStore(): SubtreeStore & { size: number } {
  const hashes = new Map<string, Hash>();
  return {
    size: 0,
    get: (level, index) => hashes.get(`${level}/${index}`),
    put: (level, index, hash) => void hashes.set(`${level}/${index}`, hash),
  };
}

async function treeOf(leaves: Uint8Array[]) {
  const store = memoryStore();
  for (const [i, leaf] of leaves.entries()) await appendLeaf(store, i, await leafHash(leaf));
  return store;
}

/** MTH straight from RFC 9162 §2.1.1, over the leaves themselves. */
async function referenceRoot(leaves: Uint8Array[]): Promise<Hash> {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leafHash(leaves[0] as Uint8Array);
  const k = splitPoint(leaves.length);
  return nodeHash(await referenceRoot(leaves.slice(0, k)), await referenceRoot(leaves.slice(k)));
}

describe('the Merkle tree (RFC 9162)', () => {
  it("gives RFC 6962's roots for the test vectors, at every size", async () => {
    const store = await treeOf(LEAVES.map(bytes));
    for (let size = 1; size <= 8; size++)
      expect(hex(await rootAt(store, size))).toBe(ROOTS[size - 1]);
    expect(hex(await rootAt(store, 0))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it("gives and checks the vectors' inclusion and consistency proofs", async () => {
    const store = await treeOf(LEAVES.map(bytes));
    const leaf5 = await leafHash(bytes(LEAVES[5] as string));
    const path = await inclusionProof(store, 5, 8);
    expect(path.map(hex)).toEqual([
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
    expect(await verifyInclusion(5, 8, leaf5, path, bytes(ROOTS[7] as string))).toBe(true);
    expect(await verifyInclusion(4, 8, leaf5, path, bytes(ROOTS[7] as string))).toBe(false);

    const six = await consistencyProof(store, 6, 8);
    expect(six.map(hex)).toEqual([
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
    const root = (n: number) => bytes(ROOTS[n - 1] as string);
    expect(await verifyConsistency(6, 8, root(6), root(8), six)).toBe(true);
    expect(await verifyConsistency(6, 8, root(5), root(8), six)).toBe(false);
    const two = await consistencyProof(store, 2, 5);
    expect(two.map(hex)).toEqual([
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ]);
    expect(await verifyConsistency(2, 5, root(2), root(5), two)).toBe(true);
  });

  it('agrees with the RFC definition, and its proofs verify, for random trees', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 1, maxLength: 70 }),
        fc.nat(),
        fc.nat(),
        async (leaves, a, b) => {
          const store = await treeOf(leaves);
          const size = 1 + (a % leaves.length);
          const index = b % size;
          const root = await rootAt(store, size);
          expect(hex(root)).toBe(hex(await referenceRoot(leaves.slice(0, size))));
          const leaf = await leafHash(leaves[index] as Uint8Array);
          const path = await inclusionProof(store, index, size);
          expect(await verifyInclusion(index, size, leaf, path, root)).toBe(true);
          const from = 1 + (b % size);
          const proof = await consistencyProof(store, from, size);
          const fromRoot = await rootAt(store, from);
          expect(await verifyConsistency(from, size, fromRoot, root, proof)).toBe(true);
          // Any changed byte is caught.
          if (path.length > 0) {
            const bad = path.map((h) => h.slice());
            bad[0]?.set([(bad[0][0] ?? 0) ^ 1], 0);
            expect(await verifyInclusion(index, size, leaf, bad, root)).toBe(false);
          }
          if (proof.length > 0) {
            const bad = proof.map((h) => h.slice());
            const last = bad.at(-1);
            last?.set([(last[31] ?? 0) ^ 1], 31);
            expect(await verifyConsistency(from, size, fromRoot, root, bad)).toBe(false);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses proofs for leaves and sizes the tree does not have', async () => {
    const store = await treeOf(LEAVES.map(bytes));
    await expect(inclusionProof(store, 8, 8)).rejects.toThrow(/leaf 8 is not in a tree of 8/);
    await expect(consistencyProof(store, 0, 8)).rejects.toThrow(/no consistency proof from 0/);
    await expect(rootAt(store, 9)).rejects.toThrow(/no subtree hash/);
  });
});
