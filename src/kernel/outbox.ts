import { migrateOutbox } from './outbox-schema';
import type { Sql } from './sql';

/**
 * The Durable Object's one outbox: whatever a stream owes the outside world
 * (its Wires to its HCS topic, effects to other streams, webhooks), recorded
 * in SQLite in the same synchronous stretch as the Wire that causes it, so a
 * row exists exactly when its cause is stored. Delivery is pluggable: each
 * row names a `via`, and the `Delivery` registered for it hands rows over
 * and answers done or "again at". Delivery is at-least-once; the prompt
 * round after an append and the alarm (the durable fallback) share one path.
 */
export type Parcel = {
  id: number;
  via: string;
  target: string;
  /** The `stream_seq` of the Wire the row is about (the topic delivery reads it from the log). */
  seq: number | null;
  body: string | null;
  tag: string | null;
  /** The delivery's own stable key (a webhook's `webhook-id`). */
  key: string | null;
  /** Failed attempts so far. */
  attempts: number;
  due_at: number;
};

/** What a delivery answers for the rows it was handed. */
export type Outcome = { done: true } | { done: false; retryAt: number };

export const DONE: Outcome = { done: true };

export interface Delivery {
  /** The `via` of the rows this delivery serves. */
  readonly via: string;
  /** Most rows one `deliver` call takes (they share a target). */
  readonly batch: number;
  /** A target's rows go in order: while its first row waits for a retry, the rest wait too. */
  readonly ordered: boolean;
  /**
   * Milliseconds a fresh row waits for company before its round (so rows
   * recorded meanwhile ride along); null: delivered only when asked
   * (`Outbox.deliver`) or by the alarm.
   */
  readonly promptMs: number | null;
  /** When the alarm takes a fresh row no prompt round delivered (ms after it was recorded). */
  readonly fallbackMs: number;
  /**
   * Rounds run beside the caller instead of being awaited (a slow receiver
   * must hold up neither the alarm nor the next append). Each row's due time
   * moves `attemptMs` ahead first, so an object evicted mid-attempt retries after it.
   */
  readonly attemptMs: number | null;
  deliver(target: string, parcels: readonly Parcel[], now: number): Promise<Outcome>;
}

export interface Posting {
  via: string;
  target: string;
  seq?: number;
  body?: string;
  tag?: string;
  key?: string;
}

/** Rows one round reads per via. */
const WINDOW = 400;

export class Outbox {
  readonly #deliveries = new Map<string, Delivery>();
  /** Rows being delivered by this instance (never handed over twice at once). */
  readonly #inflight = new Set<number>();
  /** Single flight per awaited via: rows recorded during a round ride along with the next. */
  readonly #flights = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** `MIN(due_at)`, remembered: every append asks it (to arm the alarm), few change it. */
  #nextDue: number | null | undefined;

  /** `rescheduled` is told when a row's next time changed outside the append (re-arm the alarm). */
  constructor(
    private readonly sql: Sql,
    private readonly rescheduled: () => void = () => {},
  ) {
    migrateOutbox(sql);
  }

  /** Registers the delivery of one `via`. */
  use(delivery: Delivery): void {
    this.#deliveries.set(delivery.via, delivery);
  }

  /** Records a row; call in the synchronous stretch of the append that causes it. */
  add(posting: Posting, now: number): Parcel {
    const delivery = this.#delivery(posting.via);
    const due = now + delivery.fallbackMs;
    const row = this.sql<{ id: number }>`INSERT INTO outbox
      (via, target, seq, body, tag, key, due_at)
      VALUES (${posting.via}, ${posting.target}, ${posting.seq ?? null}, ${posting.body ?? null},
        ${posting.tag ?? null}, ${posting.key ?? null}, ${due}) RETURNING id`[0];
    if (this.#nextDue !== undefined && (this.#nextDue === null || due < this.#nextDue))
      this.#nextDue = due;
    if (delivery.promptMs !== null) this.#soon(delivery, delivery.promptMs);
    return {
      id: row?.id ?? 0,
      via: posting.via,
      target: posting.target,
      seq: posting.seq ?? null,
      body: posting.body ?? null,
      tag: posting.tag ?? null,
      key: posting.key ?? null,
      attempts: 0,
      due_at: due,
    };
  }

  /** Delivers these rows now (each on its own), awaited: effects the caller answers after. */
  async deliver(parcels: readonly Parcel[]): Promise<void> {
    await Promise.all(
      parcels
        .filter((p) => !this.#inflight.has(p.id))
        .map((p) => this.#send(this.#delivery(p.via), [p])),
    );
  }

  /** The alarm: every via's round; detached ones are started, the others awaited. */
  async onAlarm(): Promise<void> {
    const rounds: Promise<void>[] = [];
    for (const delivery of this.#deliveries.values()) {
      if (delivery.attemptMs !== null) this.#detached(delivery);
      else rounds.push(this.#flush(delivery));
    }
    await Promise.all(rounds);
  }

  /** When the alarm next has work here (null: nothing queued). */
  wakeAt(): number | null {
    if (this.#nextDue === undefined) {
      this.#nextDue =
        this.sql<{ t: number | null }>`SELECT MIN(due_at) AS t FROM outbox`[0]?.t ?? null;
    }
    return this.#nextDue;
  }

  /** Rows queued for `via` (all rows without one). */
  size(via?: string): number {
    const rows =
      via === undefined
        ? this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM outbox`
        : this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM outbox WHERE via = ${via}`;
    return rows[0]?.n ?? 0;
  }

  /**
   * Drops the rows queued for `target` under `via` (a webhook endpoint that
   * was removed). Rows being delivered are left to finish their attempt: the
   * attempt settles its row by id, and a row recorded meanwhile could take a
   * dropped row's id (an INTEGER PRIMARY KEY reuses the largest one).
   */
  drop(via: string, target: string): void {
    this.sql`DELETE FROM outbox WHERE via = ${via} AND target = ${target}
      AND id NOT IN (SELECT value FROM json_each(${JSON.stringify([...this.#inflight])}))`;
    this.#nextDue = undefined;
  }

  /** Whether a row with this delivery key is queued for `via`. */
  has(via: string, key: string): boolean {
    return this.sql`SELECT 1 FROM outbox WHERE via = ${via} AND key = ${key} LIMIT 1`.length > 0;
  }

  #delivery(via: string): Delivery {
    const delivery = this.#deliveries.get(via);
    if (!delivery) throw new Error(`outbox: no delivery registered for via '${via}'`);
    return delivery;
  }

  #soon(delivery: Delivery, ms: number): void {
    if (this.#timers.has(delivery.via)) return;
    this.#timers.set(
      delivery.via,
      setTimeout(() => {
        this.#timers.delete(delivery.via);
        if (delivery.attemptMs !== null) this.#detached(delivery);
        else void this.#flush(delivery);
      }, ms),
    );
  }

  /** A round nobody waits for: it only starts each attempt. */
  #detached(delivery: Delivery): void {
    this.#round(delivery).catch((error: unknown) =>
      console.warn(`outbox: ${delivery.via} round failed`, error),
    );
  }

  /** Single flight for an awaited via; a call during a round makes it run once more. */
  #flush(delivery: Delivery): Promise<void> {
    const running = this.#flights.get(delivery.via);
    if (running) {
      this.#again.add(delivery.via);
      return running;
    }
    const flight = (async () => {
      do {
        this.#again.delete(delivery.via);
        await this.#round(delivery);
      } while (this.#again.has(delivery.via));
    })()
      .catch((error: unknown) => console.warn(`outbox: ${delivery.via} round failed`, error))
      .finally(() => this.#flights.delete(delivery.via));
    this.#flights.set(delivery.via, flight);
    return flight;
  }

  /** One round of `delivery`: what is ready, by target, in batches. */
  async #round(delivery: Delivery): Promise<void> {
    const now = Date.now();
    // An ordered via reads each target's head, ready or not (rows wait behind it); an
    // unordered one only rows it can send, so a window full of rows waiting for their
    // retry (one receiver down for hours) neither hides the rest nor re-arms the alarm
    // for them at once, forever.
    const rows = delivery.ordered
      ? this.sql<Parcel>`SELECT id, via, target, seq, body, tag, key, attempts, due_at
        FROM outbox WHERE via = ${delivery.via} ORDER BY id LIMIT ${WINDOW}`
      : this.sql<Parcel>`SELECT id, via, target, seq, body, tag, key, attempts, due_at
        FROM outbox WHERE via = ${delivery.via} AND (attempts = 0 OR due_at <= ${now})
        AND id NOT IN (SELECT value FROM json_each(${JSON.stringify([...this.#inflight])}))
        ORDER BY id LIMIT ${WINDOW}`;
    const byTarget = new Map<string, Parcel[]>();
    for (const row of rows) {
      const list = byTarget.get(row.target);
      if (list) list.push(row);
      else byTarget.set(row.target, [row]);
    }
    const ready = (p: Parcel) => !this.#inflight.has(p.id) && (p.attempts === 0 || p.due_at <= now);
    const batches: Parcel[][] = [];
    for (const [target, list] of byTarget) {
      if (!delivery.ordered) {
        for (const p of list.filter(ready)) batches.push([p]);
        continue;
      }
      const head = list[0];
      if (head && !ready(head)) {
        // Rows behind a head that waits for its retry wait as long (so the
        // alarm is not armed for rows that cannot go yet).
        if (!this.#inflight.has(head.id)) this.#holdBehind(delivery.via, target, head);
        continue;
      }
      const batch: Parcel[] = [];
      for (const p of list) {
        if (!ready(p) || batch.length === delivery.batch) break;
        batch.push(p);
      }
      if (batch.length > 0) batches.push(batch);
    }
    const sends = batches.map((batch) =>
      this.#send(delivery, batch).catch((error: unknown) =>
        console.warn(`outbox: ${delivery.via} delivery failed`, error),
      ),
    );
    if (delivery.attemptMs === null) await Promise.all(sends);
  }

  #holdBehind(via: string, target: string, head: Parcel): void {
    this.sql`UPDATE outbox SET due_at = ${head.due_at}
      WHERE via = ${via} AND target = ${target} AND id > ${head.id} AND due_at < ${head.due_at}`;
    this.#nextDue = undefined;
  }

  async #send(delivery: Delivery, batch: Parcel[]): Promise<void> {
    const first = batch[0];
    const last = batch.at(-1);
    if (!first || !last) return;
    for (const p of batch) this.#inflight.add(p.id);
    try {
      const now = Date.now();
      if (delivery.attemptMs !== null) {
        this.sql`UPDATE outbox SET due_at = ${now + delivery.attemptMs} WHERE via = ${first.via}
          AND target = ${first.target} AND id BETWEEN ${first.id} AND ${last.id}`;
        this.#nextDue = undefined;
      }
      let outcome: Outcome;
      try {
        outcome = await delivery.deliver(first.target, batch, now);
      } catch (error) {
        // A delivery answers its expected failures; this is a bug or a storage error.
        console.warn(`outbox: ${delivery.via} delivery to ${first.target} threw`, error);
        outcome = {
          done: false,
          retryAt: Date.now() + Math.min(60_000, 1000 * 2 ** first.attempts),
        };
      }
      const { via, target } = first;
      if (outcome.done) {
        this.sql`DELETE FROM outbox WHERE via = ${via} AND target = ${target}
          AND id BETWEEN ${first.id} AND ${last.id}`;
      } else {
        this.sql`UPDATE outbox SET attempts = attempts + 1, due_at = ${outcome.retryAt}
          WHERE via = ${via} AND target = ${target} AND id BETWEEN ${first.id} AND ${last.id}`;
      }
      this.#nextDue = undefined;
      if (!outcome.done) this.rescheduled();
    } finally {
      for (const p of batch) this.#inflight.delete(p.id);
    }
  }
}
