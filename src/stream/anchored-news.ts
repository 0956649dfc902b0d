import type { AnchorRecord, AnchorStatus } from '../protocol';

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
 * themselves. News rides along in the next `wires` frame instead (its
 * `anchored` list); only when no Wire follows within a short window (see
 * `delayMs`) is it told as a frame of its own, `{"kind":"anchored",…}`,
 * listing several Wires.
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
 * How long news waits for a `wires` frame to ride in before it is told in a
 * frame of its own: at least 50 ms, so a busy stream's news always rides;
 * with many subscribers up to 250 ms, so a quiet stream's standalone sends
 * stay near 4 per millisecond (1,000 subscribers: 250 ms). Well inside the
 * 1 s append→anchored target either way.
 */
export function delayMs(subscribers: number): number {
  return Math.min(250, Math.max(50, Math.floor(subscribers / 4)));
}

export class AnchoredFrames {
  readonly #lists = new Map<number, string>();
  readonly #frames = new Map<number, string>();
  #withFrame: { base: string; n: number; text: string } | null = null;

  constructor(private readonly updates: AnchorUpdate[]) {}

  /**
   * The serialised list for a socket whose cursor is `cursor`: only Wires it
   * already holds (a Wire sent later carries its anchor), or null with n = 0.
   * Sockets mostly sit at the same cursor, so each distinct list is
   * serialised once.
   */
  #list(cursor: number): { n: number; text: string | null } {
    let n = this.updates.length;
    while (n > 0 && (this.updates[n - 1] as AnchorUpdate).stream_seq > cursor) n--;
    if (n === 0) return { n, text: null };
    let text = this.#lists.get(n);
    if (text === undefined) {
      text = JSON.stringify(this.updates.slice(0, n));
      this.#lists.set(n, text);
    }
    return { n, text };
  }

  /** A frame of its own, `{"kind":"anchored","wires":[…]}`, or null (one text per list). */
  for(cursor: number): string | null {
    const { n, text } = this.#list(cursor);
    if (text === null) return null;
    let frame = this.#frames.get(n);
    if (frame === undefined) {
      frame = `{"kind":"anchored","wires":${text}}`;
      this.#frames.set(n, frame);
    }
    return frame;
  }

  /**
   * A serialised `wires` frame (`{"kind":"wires","wires":[…]}`) with the news
   * for `cursor` added as its `anchored` list — the same text for every
   * socket at the same cursor.
   */
  withWires(frame: string, cursor: number): string {
    const { n, text } = this.#list(cursor);
    if (text === null) return frame;
    const last = this.#withFrame;
    if (last !== null && last.base === frame && last.n === n) return last.text;
    const combined = `${frame.slice(0, -1)},"anchored":${text}}`;
    this.#withFrame = { base: frame, n, text: combined };
    return combined;
  }
}
