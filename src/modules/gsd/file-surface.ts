import { MAX_GLOB_LENGTH, parseGlob } from '../heimdall/surfaces/glob';

/**
 * A `file:claimed` path as the surface-claim gate holds it: one file, never a
 * pattern. The gate reads its surfaces as globs (heimdall/surfaces/glob.ts),
 * so `*` and `?` are written as the one-character classes `[*]` and `[?]`;
 * the characters its syntax has no literal form for (`[ ] { } ( ) |` and
 * `\`), a leading `!`, `.`/`..` or empty segments, and a path longer than the
 * gate's 256 characters once escaped are refused before anything is stored.
 * Every escaped path is parsed back with the gate's own parser and must name
 * exactly the path, so what the gate compares is the literal file.
 */

const NO_LITERAL_FORM = /[[\]{}()|\\]/;

export type FileSurface = { ok: true; glob: string } | { ok: false; reason: string };

export function fileSurface(path: string): FileSurface {
  const bad = NO_LITERAL_FORM.exec(path);
  if (bad) {
    return {
      ok: false,
      reason: `"${bad[0]}" cannot be claimed yet: the surface-claim gate reads [ ] { } ( ) | and \\ as glob syntax and has no literal form for them`,
    };
  }
  if (path.startsWith('!')) {
    return {
      ok: false,
      reason: 'a path starting with "!" cannot be claimed (the gate reads it as a negation)',
    };
  }
  const glob = path.replace(/[*?]/g, (ch) => `[${ch}]`);
  if (glob.length > MAX_GLOB_LENGTH) {
    return {
      ok: false,
      reason: `a claimed path has at most ${MAX_GLOB_LENGTH} characters (the surface-claim gate's limit; each * and ? counts 3)`,
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
