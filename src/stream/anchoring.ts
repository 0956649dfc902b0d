import type { Env } from '../env';
import { sqlOf } from '../kernel/sql';
import type { AnchorRecord } from '../protocol';
import { type AnchoredWire, Anchors } from './anchors';
import { Outbox } from './outbox';
import type { WireSource } from './subscribers';
import type { StoredWire } from './wire-log';

/**
 * The StreamObject's side of HCS anchoring, behind one field: the outbox to
 * the stream's topic and the anchors reported back. The DO shell calls
 * `afterAppend` in the append's synchronous stretch, `decorate` when serving
 * Wires, `markAnchored` from the TopicObject, and `onAlarm` from `alarm()`.
 */
export class StreamAnchoring {
  readonly #outbox: Outbox;
  readonly #anchors: Anchors;
  /** Wires already on HCS (HCS-first) being appended, by wire_id. */
  readonly #preAnchored = new Map<
    string,
    { topic: string; anchor: Omit<AnchorRecord, 'stream_seq'> }
  >();

  constructor(ctx: DurableObjectState, env: Pick<Env, 'TOPICS'>) {
    const sql = sqlOf(ctx.storage.sql);
    this.#outbox = new Outbox(sql, env);
    this.#anchors = new Anchors(sql);
  }

  afterAppend(wire: StoredWire): void {
    const pre = this.#preAnchored.get(wire.wire_id);
    if (pre === undefined) {
      this.#outbox.enqueue(wire);
      this.#outbox.soon();
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

  /** When the outbox next needs the alarm (null: nothing queued). */
  wakeAt(): number | null {
    return this.#outbox.wakeAt();
  }

  decorate(wires: StoredWire[]): AnchoredWire[] {
    return this.#anchors.decorate(wires);
  }

  source(log: WireSource): WireSource {
    return this.#anchors.source(log);
  }

  /** Records anchors; returns the new ones, for the shell to announce to subscribers. */
  markAnchored(topic: string, anchors: AnchorRecord[]): AnchorRecord[] {
    return this.#anchors.record(topic, anchors);
  }

  setDedicated(dedicated: boolean): { dedicated: boolean; role: string | null } {
    this.#outbox.setDedicated(dedicated);
    return this.#outbox.topicMode;
  }

  onAlarm(): Promise<void> {
    return this.#outbox.onAlarm();
  }
}
