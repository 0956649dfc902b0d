import type { StoredWire } from '../../protocol';
import { type Delivery, DONE } from '../outbox';

/**
 * Wires to their HCS topic (`via: 'topic'`, target = topic name, `seq` = the
 * Wire's stream_seq; the body is read from the stream's log, not copied).
 * A topic's Wires go in order, up to 200 per call; a failed call backs the
 * topic off (200 ms, doubling, at most 5 s) and the later Wires wait behind.
 * Read models are projected from the topic, so this wait is also how long
 * D1 can lag a stream after a hiccup: a 30 s ceiling could hold an agent's
 * state back for most of a minute (issue 26, defect 6); the handoff is an
 * RPC to a sibling object, so short retries cost little.
 *
 * A round's fixed cost (RPC, topic event, anchoring pass, D1 batch, anchor
 * report) dwarfs its per-Wire cost at moderate load: at a steady 100
 * appends/s, 20 ms rounds cost 7,500 µs of workerd CPU per append and 100 ms
 * rounds 6,000 (`node bench/ab.mjs --open-only --rate 100`). The wait is far
 * inside the 1 s append→anchored and append→D1 targets; the alarm, 1 s out,
 * delivers what an evicted object left.
 */
export interface TopicDeliveryDeps {
  /** The stored Wires with `stream_seq` from `first` to `last`. */
  load(first: number, last: number): StoredWire[];
  /** Hands Wires to the topic; resolves once it acknowledged them. */
  accept(topic: string, wires: StoredWire[]): Promise<unknown>;
}

const MAX_BACKOFF_MS = 5_000;

export function topicDelivery(deps: TopicDeliveryDeps): Delivery {
  return {
    via: 'topic',
    batch: 200,
    ordered: true,
    promptMs: 100,
    fallbackMs: 1_000,
    attemptMs: null,
    async deliver(topic, parcels) {
      const seqs = new Set(parcels.map((p) => p.seq));
      const first = parcels[0]?.seq ?? 0;
      const last = parcels.at(-1)?.seq ?? 0;
      const wires = deps.load(first, last).filter((w) => seqs.has(w.stream_seq));
      try {
        await deps.accept(topic, wires);
        return DONE;
      } catch (error) {
        console.warn(`outbox: topic ${topic} did not acknowledge`, error);
        const failures = (parcels[0]?.attempts ?? 0) + 1;
        return { done: false, retryAt: Date.now() + Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures) };
      }
    },
  };
}
