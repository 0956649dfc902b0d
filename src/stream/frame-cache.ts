import type { WireSource } from './subscribers';

export interface CachedFrame {
  /** The serialised `{"kind":"wires",…}` frame. */
  text: string;
  /** stream_seq of its last Wire: the socket's cursor once sent. */
  last: number;
}

/**
 * The `wires` frames of one flush, shared by every subscriber at the same
 * cursor. Live subscribers of a stream almost all sit at the same cursor, so
 * reading and serialising once per flush instead of once per socket leaves
 * fan-out with one `send` per socket. The CPU profile of 1,000 subscribers
 * (`node bench/profile.mjs --fanout 1000`) showed ~80% of the object's time in
 * per-socket `readAfter` + `JSON.parse`/`stringify` before this.
 */
export class FrameCache {
  readonly #frames = new Map<string, CachedFrame | null>();
  // The last lookup: consecutive sockets almost always ask for the same frame,
  // so most lookups skip building the key and the Map.
  #cursor = -1;
  #limit = -1;
  #frame: CachedFrame | null = null;

  constructor(private readonly source: WireSource) {}

  after(cursor: number, limit: number): CachedFrame | null {
    if (cursor === this.#cursor && limit === this.#limit) return this.#frame;
    const key = `${cursor}:${limit}`;
    let frame = this.#frames.get(key);
    if (frame === undefined) {
      const wires = this.source.readAfter(cursor, limit);
      const last = wires.at(-1);
      frame = last
        ? { text: JSON.stringify({ kind: 'wires', wires }), last: last.stream_seq }
        : null;
      this.#frames.set(key, frame);
    }
    this.#cursor = cursor;
    this.#limit = limit;
    this.#frame = frame;
    return frame;
  }
}
