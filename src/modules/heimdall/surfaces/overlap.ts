import { ANY, type CharSet, type ParsedGlob, parseGlob, type Segment, type Tok } from './glob';

/**
 * Whether two surface globs (`glob.ts`) can match a common path, the
 * collision gate's question. Decided exactly on the globs' syntax: segment
 * by segment with `**` spanning segments, and within a segment as the
 * product of the two patterns' automata over character sets (`*`, `?`,
 * classes, literals). A witness path is given back, which picomatch matches
 * with both (`test/node/heimdall-glob.test.ts`).
 */

const PREFERRED = Array.from('abcdefghijklmnopqrstuvwxyz0123456789', (c) => c.charCodeAt(0));

function inSet(set: CharSet, code: number): boolean {
  const hit = set.ranges.some(([lo, hi]) => code >= lo && code <= hi);
  return set.neg ? !hit : hit;
}

/** A character in both sets, or null. ('/' never occurs inside a segment.) */
function meet(a: CharSet, b: CharSet): number | null {
  const candidates = [
    ...PREFERRED,
    ...a.ranges.flatMap(([lo, hi]) => [lo, hi + 1]),
    ...b.ranges.flatMap(([lo, hi]) => [lo, hi + 1]),
  ];
  for (const code of candidates) {
    if (code !== 0x2f && code <= 0x10ffff && inSet(a, code) && inSet(b, code)) return code;
  }
  // Two negated sets exclude finitely many characters: one past every range is free.
  if (a.neg && b.neg) {
    const top = Math.max(0x7f, ...a.ranges.map((r) => r[1]), ...b.ranges.map((r) => r[1]));
    return top + 1 <= 0x10ffff ? top + 1 : null;
  }
  return null;
}

/** What matters of a word read so far: empty, ".", "..", or a real name. */
function wordClass(word: string): number {
  if (word === '') return 0;
  if (word === '.') return 1;
  return word === '..' ? 2 : 3;
}

/** A segment name (not empty, ".", "..") both token sequences match, or null. */
function segmentWitness(a: Tok[], b: Tok[]): string | null {
  const seen = new Set<string>();
  const queue: [number, number, string][] = [[0, 0, '']];
  while (queue.length > 0) {
    const [i, j, word] = queue.shift() as [number, number, string];
    const key = `${i},${j},${wordClass(word)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length && wordClass(word) === 3) return word;
    const ta = a[i];
    const tb = b[j];
    if (ta?.star) queue.push([i + 1, j, word]);
    if (tb?.star) queue.push([i, j + 1, word]);
    if (ta && tb) {
      const code = meet(ta.star ? ANY : ta.set, tb.star ? ANY : tb.set);
      if (code !== null) {
        queue.push([ta.star ? i : i + 1, tb.star ? j : j + 1, word + String.fromCodePoint(code)]);
      }
    }
  }
  return null;
}

/** Any non-empty name a segment pattern matches. */
function anyName(seg: Tok[]): string {
  return segmentWitness(seg, [{ star: true }]) ?? 'x';
}

/** A path (non-empty segments) both segment lists match, or null. */
function pathWitness(a: Segment[], b: Segment[]): string[] | null {
  const seen = new Set<string>();
  const queue: [number, number, string[]][] = [[0, 0, []]];
  while (queue.length > 0) {
    const [i, j, path] = queue.shift() as [number, number, string[]];
    const key = `${i},${j}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length) return path;
    const sa = a[i];
    const sb = b[j];
    if (sa === 'globstar') queue.push([i + 1, j, path]);
    if (sb === 'globstar') queue.push([i, j + 1, path]);
    if (sa === undefined || sb === undefined) continue;
    // One segment consumed by both: a globstar stays put, a pattern moves on.
    if (sa === 'globstar' && sb === 'globstar') continue; // back at (i, j): nothing new
    if (sa === 'globstar' && sb !== 'globstar') queue.push([i, j + 1, [...path, anyName(sb)]]);
    else if (sb === 'globstar' && sa !== 'globstar') queue.push([i + 1, j, [...path, anyName(sa)]]);
    else if (sa !== 'globstar' && sb !== 'globstar') {
      const name = segmentWitness(sa, sb);
      if (name !== null) queue.push([i + 1, j + 1, [...path, name]]);
    }
  }
  return null;
}

/**
 * A path both parsed globs match, or null when none exists. The path is
 * empty only when both globs are made of `**` alone (they then share every path).
 */
export function overlapWitness(a: ParsedGlob, b: ParsedGlob): string | null {
  for (const x of a.alternatives) {
    for (const y of b.alternatives) {
      const path = pathWitness(x, y);
      if (path !== null) return path.length > 0 ? path.join('/') : 'x';
    }
  }
  return null;
}

/** Can some path match both parsed globs? */
export function globsOverlap(a: ParsedGlob, b: ParsedGlob): boolean {
  return overlapWitness(a, b) !== null;
}

/** Can some path match both globs? (Both must parse; a refused glob overlaps nothing.) */
export function overlaps(a: string, b: string): boolean {
  const pa = parseGlob(a);
  const pb = parseGlob(b);
  return pa.ok && pb.ok && globsOverlap(pa.parsed, pb.parsed);
}
