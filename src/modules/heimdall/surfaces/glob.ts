import braces from 'braces';
import picomatch from 'picomatch';
import { braceCount } from './brace-count';

/**
 * Surface globs: which path globs a claim may name, parsed into what the
 * overlap check (`overlap.ts`, the collision gate's question) compares.
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
 * Whether two globs can match a common path: `overlap.ts`.
 */

export type CharSet = { neg: boolean; ranges: [number, number][] };
export type Tok = { star: true } | { star: false; set: CharSet };
/** A segment: `**` (globstar) or a sequence of tokens. */
export type Segment = 'globstar' | Tok[];

export const MAX_GLOB_LENGTH = 256;
/** Brace alternatives one glob may expand to. */
export const MAX_ALTERNATIVES = 64;

/** A parsed glob: its brace alternatives, each a list of segments. */
export interface ParsedGlob {
  glob: string;
  alternatives: Segment[][];
}

export type GlobResult = { ok: true; parsed: ParsedGlob } | { ok: false; reason: string };

/** Any one character (`?`). */
export const ANY: CharSet = { neg: true, ranges: [] };

function literal(ch: string): CharSet {
  const code = ch.codePointAt(0) ?? 0;
  return { neg: false, ranges: [[code, code]] };
}

/** Index after the `]` that closes the class opened at `start`, or -1 when none does. */
function classEnd(text: string, start: number): number {
  let i = start + 1;
  if (text[i] === '^') i++;
  // A "]" first is a member (POSIX), as picomatch reads it: "[]]" is "]".
  if (text[i] === ']') i++;
  const close = text.indexOf(']', i);
  return close < 0 ? -1 : close + 1;
}

/** Parses one `[...]` class starting at `start` (the `[`); the set and the index after `]`. */
function parseClass(text: string, start: number): { set: CharSet; end: number } | string {
  const end = classEnd(text, start);
  if (end < 0) return 'a "[" class is not closed with "]"';
  let body = text.slice(start + 1, end - 1);
  // picomatch reads "[!a]" as "[!a]" or one of "!", "a": only "^" negates.
  if (body.startsWith('!')) return 'negate a class with "^" ([^a-z]), not "!"';
  const neg = body.startsWith('^');
  if (neg) body = body.slice(1);
  const ranges: [number, number][] = [];
  const chars = Array.from(body);
  for (let k = 0; k < chars.length; ) {
    const ch = chars[k] ?? '';
    if (ch === '[' && /[:.=]/.test(chars[k + 1] ?? '')) {
      return `"[${chars[k + 1]}" inside a class (POSIX classes like [[:alpha:]]) is not supported`;
    }
    if (ch === '\\') return 'backslash escapes are not supported';
    const after = chars[k + 2];
    if (chars[k + 1] === '-' && after !== undefined) {
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
  return { set: { neg, ranges }, end };
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

/** Why `glob` is refused, if it is; `syntax` is `outsideClasses(glob)`. */
function refusalOf(glob: string, syntax: string): string | null {
  if (glob.length === 0) return 'a glob cannot be empty';
  if (glob.length > MAX_GLOB_LENGTH) return `a glob has at most ${MAX_GLOB_LENGTH} characters`;
  if (glob.startsWith('/')) return 'globs are relative paths (no leading "/")';
  if (glob.startsWith('!')) return 'negated globs ("!…") are not supported';
  if (glob.includes('\\')) return 'backslash escapes are not supported';
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
  const syntax = outsideClasses(glob);
  const refused = refusalOf(glob, syntax);
  if (refused) return { ok: false, reason: refused };
  let expanded: string[] = [glob];
  // Without a brace outside a class there is nothing to expand.
  if (syntax.includes('{')) {
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
