import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY } from '../../src/client';

const policy = fc
  .record({ baseMs: fc.integer({ min: 1, max: 10_000 }), extra: fc.nat({ max: 100_000 }) })
  .map(({ baseMs, extra }) => ({ attempts: 6, baseMs, maxMs: baseMs + extra }));

describe('retry backoff', () => {
  it('waits between half and all of the capped exponential delay, whatever the draw', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 80 }),
        policy,
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, p, draw) => {
          const cap = Math.min(p.maxMs, p.baseMs * 2 ** attempt);
          const delay = backoffDelay(attempt, p, undefined, () => draw);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(cap / 2));
          expect(delay).toBeLessThanOrEqual(cap);
        },
      ),
    );
  });

  it('keeps within those bounds even when an injected random strays outside [0, 1)', () => {
    expect(backoffDelay(2, DEFAULT_RETRY, undefined, () => -3)).toBe(200);
    expect(backoffDelay(2, DEFAULT_RETRY, undefined, () => 7)).toBe(400);
  });

  it('spreads clients that fail together instead of retrying in lockstep', () => {
    const delays = Array.from({ length: 200 }, () => backoffDelay(4, DEFAULT_RETRY));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(800);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1600);
    expect(new Set(delays).size).toBeGreaterThan(50);
  });
});
