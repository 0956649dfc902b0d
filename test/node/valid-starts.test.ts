import { afterEach, describe, expect, it, vi } from 'vitest';
import { backdatedNow, nextValidStart } from '../../src/anchor/anchor';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('transaction valid starts', () => {
  it('differ between sequences that ask in the same millisecond, backdated 3 s', () => {
    const now = 1_795_000_000_000;
    vi.spyOn(Date, 'now').mockReturnValue(now);
    // Two directories (deployments, test files) paying from one account, each
    // with its own `last`: they must not land on one transaction id.
    const starts = Array.from({ length: 200 }, () => nextValidStart(backdatedNow(), 0n));
    expect(new Set(starts).size).toBeGreaterThan(190);
    const ms = BigInt(now - 3000) * 1_000_000n;
    for (const s of starts) {
      expect(s).toBeGreaterThanOrEqual(ms);
      expect(s).toBeLessThan(ms + 1_000_000n);
    }
  });

  it('still increase strictly within one sequence', () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_795_000_000_000);
    let last = 0n;
    for (let i = 0; i < 100; i++) {
      const next = nextValidStart(backdatedNow(), last);
      expect(next).toBeGreaterThan(last);
      last = next;
    }
  });
});
