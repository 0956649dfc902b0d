import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../src/protocol/secrets';

const alnum = (n: number) =>
  fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
    minLength: n,
    maxLength: n,
  });
const hex64 = fc.string({
  unit: fc.constantFrom(...'0123456789abcdef'),
  minLength: 64,
  maxLength: 64,
});

// Secret generators, assembled so no literal secret shape sits in the repo.
const secrets = fc.oneof(
  alnum(36).map((s) => `${'ghp'}_${s}`),
  alnum(36).map((s) => `${'npm'}_${s}`),
  fc
    .string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'),
      minLength: 16,
      maxLength: 16,
    })
    .map((s) => `${'AKIA'}${s}`),
  hex64.map((h) => `302e020100300506032b6570${'04220420'}${h}`),
  fc.tuple(alnum(10), alnum(12)).map(([a, b]) => `${'eyJ'}${a}.${'eyJ'}${b}.sig`),
);
const prose = fc.string({ unit: fc.constantFrom(...'abcdefghij klmnop.,:;-'), maxLength: 80 });

describe('findSecrets', () => {
  it('finds a secret wherever it sits in a string and names the field', () => {
    fc.assert(
      fc.property(prose, secrets, prose, (before, secret, after) => {
        const issues = findSecrets({ notes: [{ text: `${before} ${secret} ${after}` }] });
        expect(issues.map((i) => i.path)).toEqual(['payload.notes.0.text']);
      }),
    );
  });

  it('leaves ordinary prose, ids and sha256 hashes alone', () => {
    fc.assert(
      fc.property(prose, hex64, (text, sha) => {
        expect(findSecrets({ text, sha256: sha, task_id: 'task-42', ref: 'r2://a/b' })).toEqual([]);
      }),
    );
  });
});
