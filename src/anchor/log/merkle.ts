/**
 * An append-only Merkle tree as RFC 9162 §2.1 defines it (the hashes of RFC
 * 6962): SHA-256, leaf hash = H(0x00 ‖ leaf), node hash = H(0x01 ‖ left ‖
 * right), a tree of n leaves split at the largest power of two below n.
 *
 * The tree is kept as the hashes of its complete subtrees — level 0 holds the
 * leaf hashes, level L the hash of leaves [i·2^L, (i+1)·2^L) — which is what
 * C2SP tlog-tiles stores, so any root or proof is O(log n) reads plus the
 * hashing of at most one partial subtree per level.
 */

export type Hash = Uint8Array;

/** Where the complete subtrees' hashes live (a DO's SQLite, R2 tiles, a Map in a test). */
export interface SubtreeStore {
  get(level: number, index: number): Hash | undefined;
  put(level: number, index: number, hash: Hash): void;
}

const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

export async function sha256(...parts: Uint8Array[]): Promise<Hash> {
  const size = parts.reduce((n, p) => n + p.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

export const leafHash = (leaf: Uint8Array): Promise<Hash> => sha256(LEAF, leaf);
export const nodeHash = (left: Hash, right: Hash): Promise<Hash> => sha256(NODE, left, right);

/** The largest power of two strictly below n (n ≥ 2): RFC 9162's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function stored(store: SubtreeStore, level: number, index: number): Hash {
  const hash = store.get(level, index);
  if (!hash) throw new Error(`the log has no subtree hash at level ${level}, index ${index}`);
  return hash;
}

/** Adds the leaf with hash `leaf` as leaf number `size` (0-based), with every subtree it completes. */
export async function appendLeaf(store: SubtreeStore, size: number, leaf: Hash): Promise<void> {
  store.put(0, size, leaf);
  let hash = leaf;
  let index = size;
  let level = 0;
  while (index % 2 === 1) {
    hash = await nodeHash(stored(store, level, index - 1), hash);
    index = (index - 1) / 2;
    level += 1;
    store.put(level, index, hash);
  }
}

/**
 * MTH(D[start:end]) for a range that starts on a multiple of a power of two at
 * least its length — every range RFC 9162's recursions name: the complete
 * subtrees it decomposes into, folded from the right.
 */
export async function rangeHash(store: SubtreeStore, start: number, end: number): Promise<Hash> {
  if (end <= start) return sha256();
  const parts: Hash[] = [];
  for (let at = start; at < end; ) {
    let width = splitPoint(end - at + 1);
    while (at % width !== 0) width /= 2;
    parts.push(stored(store, Math.log2(width), at / width));
    at += width;
  }
  return foldRight(parts);
}

/** Complete subtrees side by side, largest first, hashed into their tree's root. */
async function foldRight(subtrees: Hash[]): Promise<Hash> {
  const parts = [...subtrees];
  let hash = parts.pop() ?? (await sha256());
  for (let part = parts.pop(); part; part = parts.pop()) hash = await nodeHash(part, hash);
  return hash;
}

/**
 * A tree's right edge: the hashes of the complete subtrees a tree of n leaves
 * splits into (one per set bit of n, largest first). It is all a verifier
 * keeps to extend the tree leaf by leaf and to compute its root, O(log n)
 * hashes however long the log (what a rebuild verifying an archive holds).
 */
export async function extendEdge(edge: Hash[], size: number, leaves: Hash[]): Promise<Hash[]> {
  const next = [...edge];
  let n = size;
  for (const leaf of leaves) {
    let hash = leaf;
    for (let k = n; k % 2 === 1; k = (k - 1) / 2) hash = await nodeHash(next.pop() as Hash, hash);
    next.push(hash);
    n += 1;
  }
  return next;
}

/** The root of the tree whose right edge this is. */
export const edgeRoot = (edge: Hash[]): Promise<Hash> => foldRight(edge);

/** The root of the first `size` leaves (the hash of the empty string for none). */
export const rootAt = (store: SubtreeStore, size: number): Promise<Hash> =>
  rangeHash(store, 0, size);

/** RFC 9162 §2.1.3.1 PATH(m, D[0:size]): the inclusion proof of leaf `index`. */
export async function inclusionProof(
  store: SubtreeStore,
  index: number,
  size: number,
): Promise<Hash[]> {
  if (!(index >= 0 && index < size))
    throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = async (m: number, start: number, end: number): Promise<Hash[]> => {
    if (end - start === 1) return [];
    const k = splitPoint(end - start);
    return m < k
      ? [...(await path(m, start, start + k)), await rangeHash(store, start + k, end)]
      : [...(await path(m - k, start + k, end)), await rangeHash(store, start, start + k)];
  };
  return path(index, 0, size);
}

/** RFC 9162 §2.1.4.1 PROOF(from, D[0:to]): the consistency proof between two tree sizes. */
export async function consistencyProof(
  store: SubtreeStore,
  from: number,
  to: number,
): Promise<Hash[]> {
  if (!(from >= 1 && from <= to))
    throw new RangeError(`no consistency proof from ${from} to ${to}`);
  const sub = async (m: number, start: number, end: number, whole: boolean): Promise<Hash[]> => {
    if (m === end - start) return whole ? [] : [await rangeHash(store, start, end)];
    const k = splitPoint(end - start);
    return m <= k
      ? [...(await sub(m, start, start + k, whole)), await rangeHash(store, start + k, end)]
      : [...(await sub(m - k, start + k, end, false)), await rangeHash(store, start, start + k)];
  };
  return sub(from, 0, to, true);
}

const equal = (a: Hash, b: Hash) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/** RFC 9162's "right-shift fn and sn equally until LSB(fn) is set or fn is 0". */
function untilOdd(fn: number, sn: number): [number, number] {
  let [f, s] = [fn, sn];
  while (!odd(f) && f !== 0) [f, s] = [half(f), half(s)];
  return [f, s];
}

/** RFC 9162 §2.1.3.2: does `proof` place the leaf hash at `index` under `root`? */
export async function verifyInclusion(
  index: number,
  size: number,
  leaf: Hash,
  proof: Hash[],
  root: Hash,
): Promise<boolean> {
  if (!(index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      [fn, sn] = untilOdd(fn, sn);
    } else {
      r = await nodeHash(r, p);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 §2.1.4.2: is the tree of `to` leaves an extension of the tree of `from`? */
export async function verifyConsistency(
  from: number,
  to: number,
  fromRoot: Hash,
  toRoot: Hash,
  proof: Hash[],
): Promise<boolean> {
  if (!(from >= 1 && from <= to)) return false;
  if (from === to) return proof.length === 0 && equal(fromRoot, toRoot);
  const path = Number.isInteger(Math.log2(from)) ? [fromRoot, ...proof] : proof;
  if (path.length === 0) return false;
  let fn = from - 1;
  let sn = to - 1;
  while (odd(fn)) [fn, sn] = [half(fn), half(sn)];
  let fr = path[0] as Hash;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      [fn, sn] = untilOdd(fn, sn);
    } else {
      sr = await nodeHash(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && equal(fr, fromRoot) && equal(sr, toRoot);
}
