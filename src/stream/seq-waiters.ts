/** Longest `waitPast` wait: a long poll, not a subscription. */
export const MAX_WAIT_PAST_MS = 60_000;

/**
 * Long polls on one stream's head: each waits until `stream_seq` passes its
 * seq (woken by the append itself, no polling) or until its time is up.
 */
export class SeqWaiters {
  readonly #waiters = new Set<{ seq: number; wake: (head: number) => void }>();

  constructor(private readonly head: () => number) {}

  /** Resolves with the head as soon as it passes `seq`, or after `ms` with whatever it is then. */
  waitPast(seq: number, ms: number): Promise<number> {
    const wait = Math.min(Math.max(ms, 0), MAX_WAIT_PAST_MS);
    if (this.head() > seq || wait === 0) return Promise.resolve(this.head());
    return new Promise((resolve) => {
      const waiter = {
        seq,
        wake: (head: number) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve(head);
        },
      };
      const timer = setTimeout(() => waiter.wake(this.head()), wait);
      this.#waiters.add(waiter);
    });
  }

  /** Call after an append: wakes every waiter the head has passed. */
  appended(): void {
    if (this.#waiters.size === 0) return;
    const head = this.head();
    for (const waiter of this.#waiters) if (head > waiter.seq) waiter.wake(head);
  }
}
