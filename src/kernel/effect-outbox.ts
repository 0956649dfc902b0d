import type { Draft } from '../protocol';
import type { Effect } from './kind';
import { type Sql, schemaGate } from './sql';

/**
 * Effects waiting to be appended to other streams, stored in the same
 * synchronous stretch as the Wire that caused them: if the object dies before
 * delivering, the alarm delivers later. Delivery is at-least-once; the
 * deterministic wire_ids make every repeat a replay.
 */
export interface OutboxRow extends Effect {
  id: number;
  attempts: number;
}

type Row = {
  id: number;
  target: string;
  draft: string;
  on_refused: string | null;
  attempts: number;
};

/** Delay before the alarm retries an undelivered effect (inline delivery goes first). */
export const FIRST_RETRY_MS = 10_000;

export class EffectOutbox {
  /** `MIN(due_at)`, remembered: every append asks it (to arm the alarm), few change it. */
  #nextDue: number | null | undefined;

  constructor(private readonly sql: Sql) {
    schemaGate(sql, 'effect-outbox', 1, () => {
      sql`CREATE TABLE IF NOT EXISTS coord_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        target TEXT NOT NULL,
        draft TEXT NOT NULL,
        on_refused TEXT,
        due_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0
      )`;
    });
  }

  add(effect: Effect, now: number): OutboxRow {
    const row = this.sql<{
      id: number;
    }>`INSERT INTO coord_outbox (target, draft, on_refused, due_at)
      VALUES (${effect.target}, ${JSON.stringify(effect.draft)}, ${effect.tag ?? null}, ${now + FIRST_RETRY_MS})
      RETURNING id`[0];
    this.#nextDue = undefined;
    return {
      id: row?.id ?? 0,
      target: effect.target,
      draft: effect.draft,
      ...(effect.tag === undefined ? {} : { tag: effect.tag }),
      attempts: 0,
    };
  }

  due(now: number, limit = 50): OutboxRow[] {
    return this.sql<Row>`SELECT id, target, draft, on_refused, attempts FROM coord_outbox
      WHERE due_at <= ${now} ORDER BY id LIMIT ${limit}`.map((r) => ({
      id: r.id,
      target: r.target,
      draft: JSON.parse(r.draft) as Draft,
      ...(r.on_refused === null ? {} : { tag: r.on_refused }),
      attempts: r.attempts,
    }));
  }

  done(id: number): void {
    this.sql`DELETE FROM coord_outbox WHERE id = ${id}`;
    this.#nextDue = undefined;
  }

  retryLater(row: OutboxRow, now: number): void {
    const delay = Math.min(60_000, 1000 * 2 ** row.attempts);
    this
      .sql`UPDATE coord_outbox SET attempts = attempts + 1, due_at = ${now + delay} WHERE id = ${row.id}`;
    this.#nextDue = undefined;
  }

  nextDueAt(): number | null {
    if (this.#nextDue === undefined) {
      this.#nextDue =
        this.sql<{ t: number | null }>`SELECT MIN(due_at) AS t FROM coord_outbox`[0]?.t ?? null;
    }
    return this.#nextDue;
  }

  get size(): number {
    return this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM coord_outbox`[0]?.n ?? 0;
  }
}
