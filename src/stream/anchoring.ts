import type { Env } from '../env';
import { topicDelivery } from '../kernel/deliveries/topic';
import type { Outbox } from '../kernel/outbox';
import type { Sql } from '../kernel/sql';
import { REGISTRY } from '../modules';
import type { AnchorRecord } from '../protocol';
import { routeTopic, type TopicMemory } from '../topic/routing';
import { topicStub } from '../topic/stub';
import { type AnchoredWire, Anchors } from './anchors';
import type { FollowSource, WireSource } from './subscribers';
import type { StoredWire, WireLog } from './wire-log';

/**
 * The StreamObject's side of HCS anchoring, behind one field: each accepted
 * Wire's row in the object's outbox (`via: 'topic'`, to the topic its
 * routing picks), and the anchors reported back. The DO shell calls
 * `afterAppend` in the append's synchronous stretch, `decorate` when serving
 * Wires and `markAnchored` from the TopicObject.
 */
export class StreamAnchoring {
  readonly #outbox: Outbox;
  readonly #anchors: Anchors;
  #memory: TopicMemory;
  /** Wires already on HCS (HCS-first) being appended, by wire_id. */
  readonly #preAnchored = new Map<
    string,
    { topic: string; anchor: Omit<AnchorRecord, 'stream_seq'> }
  >();

  constructor(
    private readonly sql: Sql,
    env: Pick<Env, 'TOPICS'>,
    outbox: Outbox,
    log: WireLog,
  ) {
    this.#outbox = outbox;
    this.#anchors = new Anchors(sql);
    // The Wire itself is in the log (same table space, same stretch): the
    // row only names its seq and topic, and delivery reads the log.
    outbox.use(
      topicDelivery({
        load: (first, last) => log.readAfter(first - 1, last - first + 1),
        accept: (topic, wires) => topicStub(env, topic).accept(topic, wires),
      }),
    );
    sql`CREATE TABLE IF NOT EXISTS topic_memory (key TEXT PRIMARY KEY, value TEXT NOT NULL)`;
    const rows = sql<{ key: string; value: string }>`SELECT key, value FROM topic_memory`;
    const get = (k: string) => rows.find((r) => r.key === k)?.value ?? null;
    this.#memory = { role: get('role'), dedicated: get('dedicated') === 'true' };
  }

  /** Call right after the Wire was appended, before any `await`. */
  afterAppend(wire: StoredWire, now: number): void {
    const pre = this.#preAnchored.get(wire.wire_id);
    if (pre === undefined) {
      const group = REGISTRY.kindOf(wire.stream_id)?.hooks?.topicGroup;
      const { topic, memory } = routeTopic(wire, this.#memory, group);
      if (memory !== this.#memory) this.#remember(memory);
      this.#outbox.add({ via: 'topic', target: topic, seq: wire.stream_seq }, now);
      return;
    }
    this.#anchors.record(pre.topic, [{ ...pre.anchor, stream_seq: wire.stream_seq }]);
  }

  /** Runs `append` for a Wire found on HCS: it is recorded as anchored, never resubmitted. */
  async appendingAnchored<T>(
    topic: string,
    anchor: Omit<AnchorRecord, 'stream_seq'>,
    append: () => Promise<T>,
  ): Promise<T> {
    this.#preAnchored.set(anchor.wire_id, { topic, anchor });
    try {
      return await append();
    } finally {
      this.#preAnchored.delete(anchor.wire_id);
    }
  }

  decorate(wires: StoredWire[]): AnchoredWire[] {
    return this.#anchors.decorate(wires);
  }

  source(log: WireSource): FollowSource {
    return this.#anchors.source(log);
  }

  /** Records anchors; returns the new ones, for the shell to announce to subscribers. */
  markAnchored(topic: string, anchors: AnchorRecord[]): AnchorRecord[] {
    return this.#anchors.record(topic, anchors);
  }

  /** Sends later Wires of this stream to its own topic (or back to the shared one). */
  setDedicated(dedicated: boolean): { dedicated: boolean; role: string | null } {
    this.#remember({ ...this.#memory, dedicated });
    return { ...this.#memory };
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
