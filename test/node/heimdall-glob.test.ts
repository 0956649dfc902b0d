import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatches, parseGlob } from '../../src/modules/heimdall/surfaces/glob';
import { overlaps, overlapWitness } from '../../src/modules/heimdall/surfaces/overlap';

function witness(a: string, b: string): string | null {
  const pa = parseGlob(a);
  const pb = parseGlob(b);
  if (!pa.ok || !pb.ok) throw new Error(`unparsable: ${a} ${b}`);
  return overlapWitness(pa.parsed, pb.parsed);
}

describe('surface glob overlap', () => {
  it("decides the issue's three cases by paths, not by prefix", () => {
    expect(overlaps('src/a/**', 'src/a/b.ts')).toBe(true);
    expect(overlaps('src/**/*.ts', 'src/x/*.md')).toBe(false);
    expect(overlaps('src/{a,b}/*.ts', 'src/b/c.ts')).toBe(true);
  });

  it('decides the cases a string prefix gets wrong', () => {
    expect(overlaps('src/a*', 'src/ab/c.ts')).toBe(false); // `*` stays in one segment
    expect(overlaps('src/a', 'src/ab')).toBe(false);
    expect(overlaps('**/*.md', 'docs/x/README.md')).toBe(true);
    expect(overlaps('src/**', 'src')).toBe(true); // `**` may match zero segments
    expect(overlaps('*.ts', 'src/*.ts')).toBe(false);
    expect(overlaps('src/*.{ts,tsx}', 'src/a.tsx')).toBe(true);
    expect(overlaps('a/[^b]*.ts', 'a/b*.ts')).toBe(false);
    expect(overlaps('a/[^b]*.ts', 'a/?*.ts')).toBe(true);
    expect(overlaps('a/[a-c]?.js', 'a/[d-f]x.js')).toBe(false);
    expect(overlaps('a/[a-c]?.js', 'a/[c-f]x.js')).toBe(true);
    expect(overlaps('x/file{1..3}.txt', 'x/file3.txt')).toBe(true);
    expect(overlaps('x/file{1..3}.txt', 'x/file4.txt')).toBe(false);
    expect(overlaps('**/a/**', '**/b/**')).toBe(true);
    expect(overlaps('*a*b*', '*b*a*')).toBe(true);
    expect(overlaps('*.ts', '*.md')).toBe(false);
  });

  it('gives a witness path that picomatch matches with both globs', () => {
    for (const [a, b] of [
      ['src/a/**', 'src/a/b.ts'],
      ['src/{a,b}/*.ts', 'src/b/c.ts'],
      ['**/a/**', '**/b/**'],
      ['*a*b*', '*b*a*'],
      ['a/[a-c]?.js', 'a/[c-f]x.js'],
      ['*.*', 'a?'], // picomatch's fastpath for a whole '*.*' refused 'a.'
    ] as const) {
      const path = witness(a, b);
      expect(path, `${a} vs ${b}`).not.toBeNull();
      expect(globMatches(a, path ?? ''), `${a} ~ ${path}`).toBe(true);
      expect(globMatches(b, path ?? ''), `${b} ~ ${path}`).toBe(true);
    }
  });

  it('reads every character inside a class as itself, so a path with glob syntax has a literal form', () => {
    const cases: [string, string, string][] = [
      // glob, the one path it names, a path its characters would name as syntax
      ['app/[[]id[]].tsx', 'app/[id].tsx', 'app/i.tsx'],
      ['app/[[][[][.][.][.]slug[]][]]/page.tsx', 'app/[[...slug]]/page.tsx', 'app/[.../page.tsx'],
      ['app/[(]auth[)]/login.tsx', 'app/(auth)/login.tsx', 'app/auth/login.tsx'],
      ['x/[{]a,b[}]', 'x/{a,b}', 'x/a'],
      ['x/a[|]b', 'x/a|b', 'x/a'],
      ['x/c[+][+]', 'x/c++', 'x/c+'],
      ['x/[)][+]', 'x/)+', 'x/))'],
      ['x/[]]', 'x/]', 'x/[]]'],
    ];
    for (const [glob, path, other] of cases) {
      const parsed = parseGlob(glob);
      expect(parsed.ok, `${glob}: ${parsed.ok || parsed.reason}`).toBe(true);
      expect(globMatches(glob, path), `${glob} ~ ${path}`).toBe(true);
      expect(globMatches(glob, other), `${glob} !~ ${other}`).toBe(false);
      expect(witness(glob, glob), glob).toBe(path);
      expect(
        witness(
          glob,
          other.replace(/[[\]{}()|*?+]/g, (c) => `[${c}]`),
        ),
        glob,
      ).toBeNull();
    }
    expect(overlaps('app/[[]id[]].tsx', 'app/**')).toBe(true);
    expect(overlaps('app/[[]id[]].tsx', 'app/[id].tsx')).toBe(false); // a class of "i" or "d"
    expect(overlaps('app/[(]auth[)]/**', 'app/?auth?/*.tsx')).toBe(true);
    // A class is never also the bracketed name (picomatch's literalBrackets is off).
    expect(globMatches('a/[bc]', 'a/[bc]')).toBe(false);
    expect(globMatches('a/[]b-d]', 'a/c')).toBe(true); // "]" first is a member, ranges too
  });

  it('refuses what it does not support, saying why', () => {
    for (const glob of [
      '',
      '/abs/*',
      '!src/**',
      'src/@(a|b)',
      'src/+(a)',
      'a\\*b',
      'a//b',
      'a/',
      'src/a**',
      'a/../b',
      'a/[[:alpha:]]',
      'a/[b',
      'a/[!b]',
      'a/(b)',
      'a/b|c',
      'a/[)]+',
      'a/{b,c}/[]]',
      'a/[[.a.]]',
      'a/}',
      'a/{b}',
      'a/{b,c',
      'x{1..100}',
    ]) {
      const parsed = parseGlob(glob);
      expect(parsed.ok, glob).toBe(false);
      if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(5);
    }
  });

  // Random globs over a tiny alphabet, random paths: whenever picomatch finds a
  // path matching both, overlap says yes; whenever overlap says yes, its
  // witness matches both under picomatch. Together: exact on this syntax.
  const segment = fc.oneof(
    { weight: 1, arbitrary: fc.constant('**') },
    {
      weight: 5,
      arbitrary: fc
        .array(
          fc.constantFrom(
            'a',
            'b',
            '*',
            '?',
            '[ab]',
            '[^a]',
            '[a-b]',
            '.',
            'c',
            '[[]',
            '[]]',
            '[(]',
            '[]a]',
          ),
          {
            minLength: 1,
            maxLength: 3,
          },
        )
        .map((parts) => parts.join(''))
        .filter((s) => !s.includes('**') && s !== '.' && s !== '..'),
    },
  );
  const glob = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
  const path = fc
    .array(fc.stringMatching(/^[abc.[\]()]{1,3}$/), { minLength: 1, maxLength: 4 })
    .filter((segs) => segs.every((s) => s !== '.' && s !== '..'))
    .map((s) => s.join('/'));

  it('agrees with picomatch on random globs and paths', () => {
    fc.assert(
      fc.property(glob, glob, fc.array(path, { maxLength: 30 }), (a, b, paths) => {
        const w = witness(a, b);
        if (w !== null) {
          expect(globMatches(a, w), `${a} ~ ${w}`).toBe(true);
          expect(globMatches(b, w), `${b} ~ ${w}`).toBe(true);
        }
        for (const p of paths) {
          if (globMatches(a, p) && globMatches(b, p))
            expect(w, `${a} & ${b} share ${p}`).not.toBeNull();
        }
      }),
      { numRuns: Number(process.env.GLOB_RUNS ?? 3000) },
    );
  });
});
