/**
 * The position of a subscriber in a gap-free sequence. Pure: it decides which
 * Wires of a frame are new, drops repeats (a replay after reconnecting may
 * overlap what was already delivered) and stops at the first gap so the
 * caller can re-read from `last` instead of skipping anything.
 */
export interface Gap {
  expected: number;
  got: number;
}

export interface Accepted<T> {
  fresh: T[];
  duplicates: number;
  gap: Gap | null;
}

export class ResumeCursor {
  constructor(public last: number) {}

  accept<T>(items: readonly T[], seqOf: (item: T) => number): Accepted<T> {
    const fresh: T[] = [];
    let duplicates = 0;
    for (const item of items) {
      const seq = seqOf(item);
      if (seq <= this.last) {
        duplicates++;
        continue;
      }
      if (seq !== this.last + 1)
        return { fresh, duplicates, gap: { expected: this.last + 1, got: seq } };
      fresh.push(item);
      this.last = seq;
    }
    return { fresh, duplicates, gap: null };
  }
}

/** Reads the resume point out of a 4008 close reason ("… resume with after_seq=N"). */
export function resumeHint(reason: string): number | undefined {
  const match = /after_seq=(\d+)/.exec(reason);
  return match ? Number(match[1]) : undefined;
}
