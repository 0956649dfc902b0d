import type { AnchorRecord, AnchorStatus } from '../topic/types';

/** One entry of an `{"kind":"anchored","wires":[…]}` frame. */
export interface AnchorUpdate {
  wire_id: string;
  stream_seq: number;
  anchor: AnchorStatus;
}

/**
 * Anchors reported by the TopicObject, waiting to be told to live subscribers.
 *
 * Each Wire is its own HCS transaction, so announcing each report at once
 * cost one more `send` per subscriber per Wire — as many sends as the Wires
 * themselves. Reports are held for a short window (see `delayMs`) and told as
 * one frame listing several Wires; the frame shape is unchanged.
 */
export class AnchoredNews {
  #pending: AnchorUpdate[] = [];

  get empty(): boolean {
    return this.#pending.length === 0;
  }

  add(topic: string, fresh: AnchorRecord[]): void {
    for (const { wire_id, stream_seq, stream_id: _s, ...at } of fresh) {
      this.#pending.push({ wire_id, stream_seq, anchor: { status: 'anchored', topic, ...at } });
    }
  }

  /** Hands over what is pending, as frames shared by every socket at the same cursor. */
  take(): AnchoredFrames {
    const updates = this.#pending.sort((a, b) => a.stream_seq - b.stream_seq);
    this.#pending = [];
    return new AnchoredFrames(updates);
  }
}

/**
 * How long news waits before it is told: the anchored sends of a stream stay
 * near 4 per millisecond whatever the number of subscribers (1,000
 * subscribers: 250 ms, a few: at once), well inside the 1 s append→anchored
 * target.
 */
export function delayMs(subscribers: number): number {
  return Math.min(250, Math.floor(subscribers / 4));
}

export class AnchoredFrames {
  readonly #texts = new Map<number, string>();

  constructor(private readonly updates: AnchorUpdate[]) {}

  /**
   * The frame for a socket whose cursor is `cursor`: only Wires it already
   * holds (a Wire sent later carries its anchor), or null. Sockets mostly sit
   * at the same cursor, so each distinct frame is serialised once.
   */
  for(cursor: number): string | null {
    let n = this.updates.length;
    while (n > 0 && (this.updates[n - 1] as AnchorUpdate).stream_seq > cursor) n--;
    if (n === 0) return null;
    let text = this.#texts.get(n);
    if (text === undefined) {
      text = JSON.stringify({ kind: 'anchored', wires: this.updates.slice(0, n) });
      this.#texts.set(n, text);
    }
    return text;
  }
}
