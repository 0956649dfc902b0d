import braces from 'braces';
import picomatch from 'picomatch';
import { braceCount } from './brace-count';

/**
 * Surface globs: which path globs a claim may name, and whether two globs
 * can match a common path (the collision gate's question).
 *
 * Supported syntax (anything else is refused, naming the glob and why):
 *   - relative POSIX paths, segments separated by `/`, none empty, none `.` or `..`;
 *   - `*`  any run of characters inside one segment (dotfiles included);
 *   - `?`  exactly one character inside one segment;
 *   - `[abc]`, `[a-z]`, `[^a-z]`  one character of (not of) a class (`[!…]` is refused:
 *     picomatch does not read it as a negation). Inside a class every character is itself,
 *     so a class of one is how a path names the characters that are syntax outside one:
 *     `[[]id[]].tsx` is the file `[id].tsx`, `[(]auth[)]` the folder `(auth)`, and `[{]`,
 *     `[}]`, `[|]`, `[*]`, `[?]`, `[+]` likewise; `]` is a member when it comes first
 *     (`[]]`, `[^]]`, which braces cannot expand beside), and `[` unless it opens `[:`, `[.`
 *     or `[=` (POSIX classes, refused);
 *   - `**` as a whole segment: zero or more segments (so `src/**` covers `src` itself);
 *   - braces `{a,b}` and ranges `{1..3}` (expanded by `braces`, at most 64 alternatives,
 *     counted before expanding).
 * Refused: a leading `!` (negation), extglobs `@(…)` `!(…)` `+(…)` `*(…)` `?(…)`, `(` `)` `|` outside a class,
 * `+` right after `]` or `}` (picomatch repeats the class: `[a-z]+`), quotes `"` `'`,
 * backslash escapes, POSIX classes `[[:alpha:]]`, `**` inside a segment (`a**`), absolute paths,
 * braces inside a range.
 * Matching is case-sensitive, with picomatch's POSIX rules, `dot: true`,
 * `fastpaths: false` (its shortcuts for `*.*` disagree with its own parser) and
 * `literalBrackets: false` (otherwise `[ab]` also matches the name `[ab]`).
 *
 * Overlap is decided exactly on this syntax: segment by segment with `**`
 * spanning segments, and within a segment as the product of the two
 * patterns' automata over character sets (`*`, `?`, classes, literals).
 */

type CharSet = { neg: boolean; ranges: [number, number][] };
type Tok = { star: true } | { star: false; set: CharSet };
/** A segment: `**` (globstar) or a sequence of tokens. */
type Segment = 'globstar' | Tok[];

export const MAX_GLOB_LENGTH = 256;
/** Brace alternatives one glob may expand to. */
export const MAX_ALTERNATIVES = 64;

/** A parsed glob: its brace alternatives, each a list of segments. */
export interface ParsedGlob {
  glob: string;
  alternatives: Segment[][];
}

export type GlobResult = { ok: true; parsed: ParsedGlob } | { ok: false; reason: string };

const ANY: CharSet = { neg: true, ranges: [] };

function literal(ch: string): CharSet {
  const code = ch.codePointAt(0) ?? 0;
  return { neg: false, ranges: [[code, code]] };
}

/** Parses one `[...]` class starting at `start` (the `[`); the set and the index after `]`. */
function parseClass(text: string, start: number): { set: CharSet; end: number } | string {
  let i = start + 1;
  let neg = false;
  // picomatch reads "[!a]" as "[!a]" or one of "!", "a": only "^" negates.
  if (text[i] === '!') return 'negate a class with "^" ([^a-z]), not "!"';
  if (text[i] === '^') {
    neg = true;
    i++;
  }
  const ranges: [number, number][] = [];
  const chars = Array.from(text.slice(i));
  let k = 0;
  // A "]" first is a member (POSIX), as picomatch reads it: "[]]" is "]".
  while (k < chars.length && (chars[k] !== ']' || k === 0)) {
    const ch = chars[k] ?? '';
    if (ch === '[' && /[:.=]/.test(chars[k + 1] ?? '')) {
      return `"[${chars[k + 1]}" inside a class (POSIX classes like [[:alpha:]]) is not supported`;
    }
    if (ch === '\\') return 'backslash escapes are not supported';
    const next = chars[k + 1];
    const after = chars[k + 2];
    if (next === '-' && after !== undefined && after !== ']') {
      const lo = ch.codePointAt(0) ?? 0;
      const hi = after.codePointAt(0) ?? 0;
      if (lo > hi) return `the class range "${ch}-${after}" is reversed`;
      ranges.push([lo, hi]);
      k += 3;
    } else {
      const code = ch.codePointAt(0) ?? 0;
      ranges.push([code, code]);
      k++;
    }
  }
  if (chars[k] !== ']') return 'a "[" class is not closed with "]"';
  // Index in UTF-16 units of the character after "]".
  const consumed = chars.slice(0, k + 1).join('').length;
  return { set: { neg, ranges }, end: i + consumed };
}

function parseSegment(segment: string): Segment | { refused: string } {
  if (segment === '**') return 'globstar';
  if (segment.includes('**')) return { refused: '"**" must be a whole segment (as in a/**/b)' };
  if (segment === '.' || segment === '..') {
    return { refused: 'segments "." and ".." are not allowed' };
  }
  const toks: Tok[] = [];
  let i = 0;
  while (i < segment.length) {
    const ch = segment[i] ?? '';
    if (ch === '*') {
      toks.push({ star: true });
      i++;
    } else if (ch === '?') {
      toks.push({ star: false, set: ANY });
      i++;
    } else if (ch === '[') {
      const cls = parseClass(segment, i);
      if (typeof cls === 'string') return { refused: cls };
      toks.push({ star: false, set: cls.set });
      i = cls.end;
    } else {
      const cp = segment.codePointAt(i) ?? 0;
      const text = String.fromCodePoint(cp);
      toks.push({ star: false, set: literal(text) });
      i += text.length;
    }
  }
  return toks;
}

/** Index after the `]` that closes the class opened at `start`, or -1 when none does. */
function classEnd(text: string, start: number): number {
  let i = start + 1;
  if (text[i] === '^') i++;
  if (text[i] === ']') i++;
  const close = text.indexOf(']', i);
  return close < 0 ? -1 : close + 1;
}

/**
 * The glob with each class's members masked (`[(]` reads `[x]`), so the
 * checks of what is syntax outside a class do not see a class's characters.
 */
function outsideClasses(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const end = glob[i] === '[' ? classEnd(glob, i) : -1;
    if (end < 0) {
      out += glob[i];
      i++;
    } else {
      out += `[${'x'.repeat(end - i - 2)}]`;
      i = end;
    }
  }
  return out;
}

function refusalOf(glob: string): string | null {
  if (glob.length === 0) return 'a glob cannot be empty';
  if (glob.length > MAX_GLOB_LENGTH) return `a glob has at most ${MAX_GLOB_LENGTH} characters`;
  if (glob.startsWith('/')) return 'globs are relative paths (no leading "/")';
  if (glob.startsWith('!')) return 'negated globs ("!…") are not supported';
  if (glob.includes('\\')) return 'backslash escapes are not supported';
  const syntax = outsideClasses(glob);
  if (/[@!+*?]\(/.test(syntax))
    return 'extglobs such as @(…), !(…), +(…), *(…), ?(…) are not supported';
  if (/[()|]/.test(syntax)) {
    return '"(", ")" and "|" are not supported outside a class (use braces {a,b}; "[(]" is the character)';
  }
  // picomatch reads "+" after a class or a brace as "one or more" ("[a-z]+" matches "foo").
  if (/[\]}]\+/.test(syntax)) return '"+" right after "]" or "}" is not supported (write it "[+]")';
  // braces reads "[]]" as "[]" and a stray "]", which it escapes.
  if (syntax.includes('{') && /\[\^?\]/.test(glob)) {
    return 'a class starting with "]" ("[]]") cannot be used beside braces';
  }
  // Quotes are literal to the overlap check, but picomatch and braces read them as quoting.
  if (/["']/.test(glob)) return 'quote characters " and \' are not supported';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused on purpose
  if (/[\u0000-\u001f]/.test(glob)) return 'control characters are not allowed';
  const scan = picomatch.scan(glob);
  if (scan.negated || scan.isExtglob) return 'negation and extglobs are not supported';
  return null;
}

/** Parses and checks a surface glob: its alternatives, or why it is refused. */
export function parseGlob(glob: string): GlobResult {
  const refused = refusalOf(glob);
  if (refused) return { ok: false, reason: refused };
  let expanded: string[] = [glob];
  // Without a brace outside a class there is nothing to expand.
  if (outsideClasses(glob).includes('{')) {
    try {
      // Counted first: expanding is exponential in the number of brace groups.
      const count = braceCount(glob, MAX_ALTERNATIVES);
      if (typeof count === 'string') return { ok: false, reason: count };
      if (count > MAX_ALTERNATIVES) {
        return { ok: false, reason: `its braces expand to more than ${MAX_ALTERNATIVES} globs` };
      }
      expanded = braces(glob, { expand: true, rangeLimit: MAX_ALTERNATIVES });
    } catch (error) {
      return { ok: false, reason: `its braces cannot be expanded: ${(error as Error).message}` };
    }
    if (expanded.length === 0) return { ok: false, reason: 'its braces expand to nothing' };
    if (expanded.length > MAX_ALTERNATIVES) {
      return { ok: false, reason: `its braces expand to more than ${MAX_ALTERNATIVES} globs` };
    }
  }
  const alternatives: Segment[][] = [];
  for (const alt of new Set(expanded)) {
    if (/[{}]/.test(outsideClasses(alt)))
      return { ok: false, reason: 'unbalanced braces, or braces without "," or ".."' };
    if (alt.includes('\\')) return { ok: false, reason: 'backslash escapes are not supported' };
    if (alt.startsWith('/'))
      return { ok: false, reason: 'globs are relative paths (no leading "/")' };
    const parts = alt.split('/');
    if (parts.some((p) => p.length === 0)) {
      return { ok: false, reason: 'empty path segments ("a//b", a trailing "/") are not allowed' };
    }
    const segments: Segment[] = [];
    for (const part of parts) {
      const seg = parseSegment(part);
      if (!Array.isArray(seg) && seg !== 'globstar') return { ok: false, reason: seg.refused };
      segments.push(seg);
    }
    alternatives.push(segments);
  }
  return { ok: true, parsed: { glob, alternatives } };
}

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

/**
 * Does `path` match `glob` (picomatch, POSIX, dotfiles included)? A trailing
 * `/**` also matches the directory itself (`src/**` matches `src`), which
 * picomatch does for `a/**` but not for `*\/**`: the gate reads `**` as zero
 * or more segments everywhere, so matching does too.
 */
export function globMatches(glob: string, path: string): boolean {
  // `fastpaths: false`: picomatch's shortcut for the whole globs `*.*` and
  // `**/*.*` wants a character after the dot (`*.*` refuses `a.`), which its
  // own full parser, and this module's overlap, do not.
  // The pattern alone: picomatch's matcher also accepts a path equal to the glob's text.
  const options = { dot: true, windows: false, fastpaths: false, literalBrackets: false };
  if (picomatch.makeRe(glob, options).test(path)) return true;
  return glob.endsWith('/**') && globMatches(glob.slice(0, -3), path);
}
