import { projectWires } from './project-wires';
import type { ProjectedWire } from './types';

/**
 * Feeds one producer's Wires to `projectWires` one batch at a time: Wires
 * that arrive while a batch is being written are coalesced into the next, so
 * a stream is never projected by two overlapping calls from the same object
 * and a burst costs a few D1 round trips instead of one per Wire. A failed
 * batch is retried with the next one (re-projecting is harmless).
 */
export class ProjectionQueue {
  #pending: ProjectedWire[] = [];
  #running: Promise<void> | null = null;

  constructor(
    private readonly db: D1Database,
    private readonly onError: (error: unknown) => void = (e) =>
      console.error('projection failed', e),
  ) {}

  /** Queues Wires; the returned promise settles once they were attempted. */
  push(...wires: ProjectedWire[]): Promise<void> {
    this.#pending.push(...wires);
    this.#running ??= this.#drain();
    return this.#running;
  }

  async #drain(): Promise<void> {
    let failures = 0;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending;
        this.#pending = [];
        try {
          await projectWires(this.db, batch);
          failures = 0;
        } catch (error) {
          this.onError(error);
          // Keep them for the next attempt, but never spin on a broken D1.
          if (++failures >= 3) return;
          this.#pending = [...batch, ...this.#pending];
          await new Promise((resolve) => setTimeout(resolve, 50 * failures));
        }
      }
    } finally {
      this.#running = null;
    }
  }
}
