import { MAX_GLOB_LENGTH, parseGlob } from '../heimdall/surfaces/glob';

/**
 * A `file:claimed` path as the surface-claim gate holds it: one file, never a
 * pattern. The gate reads its surfaces as globs (heimdall/surfaces/glob.ts),
 * so every character that is glob syntax is written as a class of one, which
 * the gate reads as that character: `app/[id].tsx` is held as
 * `app/[[]id[]].tsx`, `(auth)` as `[(]auth[)]`, `*` as `[*]`. A backslash and
 * the quotes `"` `'` (which picomatch reads as escapes and quoting), a leading
 * `!`, `.`/`..` or empty segments, and a path longer than the gate's 256
 * characters once escaped are refused before anything is stored. Every
 * escaped path is parsed back with the gate's own parser and must name
 * exactly the path, so what the gate compares is the literal file.
 */

/** Characters written as a class of one: glob syntax, and `+` after one of them (`[)]+` repeats). */
const SYNTAX = /[[\]{}()|*?]/;
const NO_LITERAL_FORM = /[\\"']/;

export type FileSurface = { ok: true; glob: string } | { ok: false; reason: string };

/** `path` with each glob-syntax character as a class of one (`[` → `[[]`). */
function escapePath(path: string): string {
  let out = '';
  let escaped = false;
  for (const ch of path) {
    escaped = SYNTAX.test(ch) || (ch === '+' && escaped);
    out += escaped ? `[${ch}]` : ch;
  }
  return out;
}

export function fileSurface(path: string): FileSurface {
  const bad = NO_LITERAL_FORM.exec(path);
  if (bad) {
    return {
      ok: false,
      reason: `"${bad[0]}" cannot be claimed: the surface-claim gate reads \\ " and ' as glob escapes and quoting and has no literal form for them`,
    };
  }
  if (path.startsWith('!')) {
    return {
      ok: false,
      reason: 'a path starting with "!" cannot be claimed (the gate reads it as a negation)',
    };
  }
  const glob = escapePath(path);
  if (glob.length > MAX_GLOB_LENGTH) {
    return {
      ok: false,
      reason: `a claimed path has at most ${MAX_GLOB_LENGTH} characters once escaped (the surface-claim gate's limit; each of [ ] { } ( ) | * ? counts 3)`,
    };
  }
  const parsed = parseGlob(glob);
  if (!parsed.ok) return { ok: false, reason: `not a relative file path: ${parsed.reason}` };
  const [only, ...more] = parsed.parsed.alternatives;
  const literal =
    more.length === 0 &&
    only !== undefined &&
    only.length === path.split('/').length &&
    only.every(
      (segment, i) =>
        segment !== 'globstar' &&
        segment
          .map((tok) => {
            const range =
              !tok.star && !tok.set.neg && tok.set.ranges.length === 1 && tok.set.ranges[0];
            return range && range[0] === range[1] ? String.fromCodePoint(range[0]) : '\u0000*';
          })
          .join('') === path.split('/')[i],
    );
  return literal
    ? { ok: true, glob }
    : { ok: false, reason: 'the surface-claim gate cannot hold this path literally' };
}
