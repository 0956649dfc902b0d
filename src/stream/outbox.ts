import type { Env } from '../env';
import type { Sql } from '../kernel/sql';
import { REGISTRY } from '../modules';
import type { StoredWire } from '../protocol';
import { routeTopic, type TopicMemory } from '../topic/routing';
import { topicStub } from '../topic/stub';

/**
 * The stream's durable hand-off to its HCS topic. `enqueue` runs in the same
 * synchronous stretch as the append, so a Wire is in the outbox exactly when
 * it is in the log; the alarm then delivers rows to their TopicObject and
 * deletes them once the topic acknowledged. A slow or failing topic only
 * delays delivery, with backoff; nothing is dropped.
 */
const BATCH = 200;
const MAX_BACKOFF_MS = 30_000;
const FALLBACK_MS = 1_000;
/**
 * A round's fixed cost (RPC, topic event, anchoring pass, D1 batch, anchor
 * report) dwarfs its per-Wire cost at moderate load: at a steady 100
 * appends/s, 20 ms rounds cost 7,500 µs of workerd CPU per append and 100 ms
 * rounds 6,000 (`node bench/ab.mjs --open-only --rate 100`). The wait is far
 * inside the 1 s append→anchored and append→D1 targets.
 */
const COALESCE_MS = 100;

type Row = { seq: number; topic: string; body: string; received_at: string };

export class Outbox {
  #memory: TopicMemory;
  #failures = 0;
  /** Rows are queued; deliver at `#retryAt` (after a failure) or at once. */
  #pending: boolean;
  #retryAt: number | null = null;
  /**
   * When the alarm delivers if `kick` did not (the object was evicted mid-way):
   * not at once, or under load the alarm would run beside every kick and
   * deliver the same rows twice over.
   */
  #fallbackAt: number | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #flushing: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly sql: Sql,
    private readonly env: Pick<Env, 'TOPICS'>,
  ) {
    sql`CREATE TABLE IF NOT EXISTS outbox (
      seq INTEGER PRIMARY KEY,
      topic TEXT NOT NULL,
      body TEXT NOT NULL,
      received_at TEXT NOT NULL
    )`;
    sql`CREATE TABLE IF NOT EXISTS topic_memory (key TEXT PRIMARY KEY, value TEXT NOT NULL)`;
    const rows = sql<{ key: string; value: string }>`SELECT key, value FROM topic_memory`;
    const get = (k: string) => rows.find((r) => r.key === k)?.value ?? null;
    this.#memory = { role: get('role'), dedicated: get('dedicated') === 'true' };
    this.#pending = this.#count() > 0;
  }

  wakeAt(): number | null {
    if (!this.#pending) return null;
    this.#fallbackAt ??= Date.now() + FALLBACK_MS;
    return this.#retryAt ?? this.#fallbackAt;
  }

  #count(): number {
    return this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM outbox`[0]?.n ?? 0;
  }

  /** The topic the stream's next Wires go to. */
  get topicMode(): { dedicated: boolean; role: string | null } {
    return { ...this.#memory };
  }

  /** Sends later Wires of this stream to its own topic (or back to the shared one). */
  setDedicated(dedicated: boolean): void {
    this.#remember({ ...this.#memory, dedicated });
  }

  /** Call right after the Wire was appended, before any `await`. Returns its topic. */
  enqueue(wire: StoredWire): string {
    const group = REGISTRY.kindOf(wire.stream_id)?.hooks?.topicGroup;
    const { topic, memory } = routeTopic(wire, this.#memory, group);
    if (memory !== this.#memory) this.#remember(memory);
    // The Wire itself is already in the log (same table space, same stretch):
    // the row only names it and its topic; delivery joins the log. Rows from
    // before this change carry their own copy, which the join ignores.
    this.sql`INSERT INTO outbox (seq, topic, body, received_at)
      VALUES (${wire.stream_seq}, ${topic}, '', '')`;
    this.#pending = true;
    return topic;
  }

  /**
   * Delivers within `COALESCE_MS`, the alarm staying set as the durable
   * fallback. Every round costs the same RPC, topic pass, D1 batch and anchor
   * report however many Wires it carries, so under load a short wait turns
   * one round per append into one per few dozen; alone, a Wire waits only
   * `COALESCE_MS` (the output gate holds the delivery until it is durable).
   */
  soon(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.kick();
    }, COALESCE_MS);
  }

  /** Single flight: appends arriving during a round ride along with the next one. */
  kick(): void {
    if (this.#flushing) {
      this.#again = true;
      return;
    }
    this.#flushing = (async () => {
      do {
        this.#again = false;
        await this.#deliver();
      } while (this.#again && this.#retryAt === null);
    })()
      .catch((error: unknown) => console.warn('outbox: delivery failed', error))
      .finally(() => {
        this.#flushing = null;
      });
  }

  /** Delivers what is queued; `wakeAt` then says when to try again, if needed. */
  async onAlarm(): Promise<void> {
    if (this.#flushing) await this.#flushing;
    await this.#deliver();
  }

  async #deliver(): Promise<void> {
    if (this.#retryAt !== null && this.#retryAt > Date.now()) return;
    this.#retryAt = null;
    const rows = this.sql<Row>`SELECT o.seq AS seq, o.topic AS topic, w.body AS body,
      w.received_at AS received_at FROM outbox o JOIN wires w ON w.seq = o.seq
      ORDER BY o.seq LIMIT ${BATCH}`;
    if (rows.length === 0) return;
    const byTopic = new Map<string, Row[]>();
    for (const row of rows) byTopic.set(row.topic, [...(byTopic.get(row.topic) ?? []), row]);
    let failed = false;
    for (const [topic, batch] of byTopic) {
      const wires: StoredWire[] = batch.map((r) => ({
        ...(JSON.parse(r.body) as StoredWire),
        received_at: r.received_at,
      }));
      try {
        await topicStub(this.env, topic).accept(topic, wires);
        const last = batch.at(-1)?.seq ?? 0;
        const first = batch[0]?.seq ?? 0;
        this.sql`DELETE FROM outbox WHERE topic = ${topic} AND seq BETWEEN ${first} AND ${last}`;
      } catch (error) {
        console.warn(`outbox: topic ${topic} did not acknowledge`, error);
        failed = true;
      }
    }
    this.#failures = failed ? this.#failures + 1 : 0;
    this.#pending = this.#count() > 0;
    if (!this.#pending) this.#fallbackAt = null;
    if (failed) this.#retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 100 * 2 ** this.#failures);
  }

  #remember(memory: TopicMemory): void {
    this.#memory = memory;
    this
      .sql`INSERT OR REPLACE INTO topic_memory (key, value) VALUES ('dedicated', ${String(memory.dedicated)})`;
    if (memory.role !== null) {
      this.sql`INSERT OR REPLACE INTO topic_memory (key, value) VALUES ('role', ${memory.role})`;
    }
  }
}
