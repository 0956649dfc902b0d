import { FrameCache } from './frame-cache';
import type { StoredWire } from './wire-log';

/**
 * Live subscribers of one stream over hibernating WebSockets.
 *
 * Each socket carries `{cursor, acked}` in its attachment so the state
 * survives hibernation: `cursor` is the last stream_seq sent, `acked` the last
 * the client acknowledged with `{"kind":"ack","seq":N}`. At most `window`
 * Wires are in flight per socket; a socket that falls `2 × window` behind the
 * head while new Wires arrive is closed with 4008 and told where to resume —
 * it never silently misses a Wire.
 */
export interface SocketState {
  cursor: number;
  acked: number;
  /** Set once the replay reached the head and `caught-up` was sent. */
  live: boolean;
}

export interface WireSource {
  readonly lastSeq: number;
  readAfter(afterSeq: number, limit: number): StoredWire[];
}

export const SLOW_CONSUMER = 4008;
const FRAME_WIRES = 100;

export type Frame =
  | { kind: 'wires'; wires: StoredWire[] }
  | { kind: 'caught-up'; last_seq: number };

export class Subscribers {
  readonly #states = new Map<WebSocket, SocketState>();
  #flushScheduled = false;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly source: WireSource,
    private readonly window: number,
  ) {
    // Rebuild the in-memory view after hibernation from the attachments.
    for (const ws of ctx.getWebSockets()) {
      const state = ws.deserializeAttachment() as SocketState | null;
      if (state) this.#states.set(ws, state);
    }
  }

  get count(): number {
    return this.#states.size;
  }

  /** Accepts a socket and sends everything after `afterSeq` it has room for. */
  accept(ws: WebSocket, afterSeq: number): void {
    this.ctx.acceptWebSocket(ws);
    const state = { cursor: afterSeq, acked: afterSeq, live: false };
    this.#states.set(ws, state);
    this.#pump(ws, state);
  }

  /**
   * Called after Wires were appended. The push is deferred by one macrotask so
   * Wires appended back to back coalesce into one frame per subscriber: under
   * load that sends fewer frames, which is what fan-out costs.
   */
  publish(): void {
    if (this.#flushScheduled || this.#states.size === 0) return;
    this.#flushScheduled = true;
    setTimeout(() => {
      this.#flushScheduled = false;
      this.#flush();
    }, 0);
  }

  #flush(): void {
    const head = this.source.lastSeq;
    const frames = new FrameCache(this.source);
    for (const [ws, state] of this.#states) {
      if (head - state.acked > 2 * this.window) {
        this.#close(ws, SLOW_CONSUMER, `slow consumer: resume with after_seq=${state.cursor}`);
        continue;
      }
      this.#pump(ws, state, frames);
    }
  }

  onMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const state = this.#states.get(ws);
    if (!state || typeof message !== 'string') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (isAck(parsed) && parsed.seq > state.acked && parsed.seq <= state.cursor) {
      state.acked = parsed.seq;
      this.#pump(ws, state);
    }
  }

  forget(ws: WebSocket): void {
    this.#states.delete(ws);
  }

  #pump(ws: WebSocket, state: SocketState, frames = new FrameCache(this.source)): void {
    const head = this.source.lastSeq;
    while (state.cursor < head) {
      const room = this.window - (state.cursor - state.acked);
      if (room <= 0) break;
      const frame = frames.after(state.cursor, Math.min(room, FRAME_WIRES));
      if (!frame) break;
      if (!this.#send(ws, frame.text)) return;
      state.cursor = frame.last;
    }
    if (!state.live && state.cursor === head) {
      state.live = true;
      this.#send(ws, { kind: 'caught-up', last_seq: head });
    }
    ws.serializeAttachment(state);
  }

  #send(ws: WebSocket, frame: Frame | string): boolean {
    try {
      ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
      return true;
    } catch (error) {
      console.warn('websocket send failed; dropping subscriber', error);
      this.forget(ws);
      return false;
    }
  }

  #close(ws: WebSocket, code: number, reason: string): void {
    this.forget(ws);
    try {
      ws.close(code, reason);
    } catch (error) {
      console.warn('websocket close failed', error);
    }
  }
}

function isAck(value: unknown): value is { kind: 'ack'; seq: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'ack' &&
    Number.isInteger((value as { seq?: unknown }).seq)
  );
}
