import type { AnchorRecord } from '../protocol';
import { type AnchoredFrames, AnchoredNews, type AnchorUpdate, delayMs } from './anchored-news';
import { type FanOutSettings, flushGapMs } from './fan-out-settings';
import { FrameCache } from './frame-cache';
import type { StoredWire } from './wire-log';

/**
 * Live subscribers of one stream over hibernating WebSockets.
 *
 * Per socket, `cursor` is the last stream_seq sent and `acked` the last the
 * client acknowledged with `{"kind":"ack","seq":N}`. At most `window` Wires
 * are in flight per socket; a socket that falls `2 × window` behind the head
 * while new Wires arrive is closed with 4008 and told where to resume — it
 * never silently misses a Wire. A socket still replaying is behind the head
 * by its backlog from the start: it is judged by the Wires appended since it
 * last acked (`heard`), so a replay paced by acks is never cut short.
 *
 * The socket's attachment (what survives hibernation) holds `{acked, live, heard}`
 * and is written only when they change, not on every send: writing it per
 * send was a structured clone per subscriber per frame. After hibernation each
 * socket resumes from `acked` and the unacknowledged tail is sent again; the
 * client SDK (src/client/resume-cursor.ts) drops a Wire whose seq it already
 * delivered, so a re-sent Wire is never delivered twice.
 */
export interface SocketState {
  cursor: number;
  acked: number;
  /** Set once the replay reached the head and `caught-up` was sent. */
  live: boolean;
  /** The head when the socket opened or last acked: how far behind a replay may be. */
  heard: number;
  /** Rebuilt after hibernation: what was sent before is unknown (≥ acked). */
  resumed?: boolean;
}

type Attachment = Pick<SocketState, 'acked' | 'live'> & { heard?: number };

export interface WireSource {
  readonly lastSeq: number;
  readAfter(afterSeq: number, limit: number): StoredWire[];
}

/** What subscribers follow: Wires with their anchors (`Anchors.source`). */
export interface FollowSource extends WireSource {
  /**
   * The anchored Wires among `afterSeq + 1 .. through`, in order, at most
   * `limit` (read from the anchors alone, not the Wires' bodies).
   */
  anchoredAfter(afterSeq: number, through: number, limit: number): AnchorUpdate[];
}

export const SLOW_CONSUMER = 4008;
const FRAME_WIRES = 100;
/** Anchors told in one `anchored` frame on a resume (`anchors_from`). */
const ANCHORS_PER_FRAME = 1000;
/** Anchors told at most on a resume; a client holding more pending reads `GET …/wires`. */
const MAX_ANCHORS_ON_RESUME = 100_000;
/** Clients ack within this long even when fewer than `ack_every` Wires are unacknowledged. */
export const ACK_WITHIN_MS = 1000;

export type Frame =
  | { kind: 'hello'; window: number; ack_every: number; ack_ms: number }
  | { kind: 'wires'; wires: StoredWire[]; anchored?: AnchorUpdate[] }
  | { kind: 'caught-up'; last_seq: number }
  | { kind: 'error'; detail: string };

export class Subscribers {
  readonly #states = new Map<WebSocket, SocketState>();
  readonly #news = new AnchoredNews();
  #flushScheduled = false;
  #lastFlush = 0;
  #newsScheduled = false;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly source: FollowSource,
    private readonly settings: FanOutSettings,
  ) {
    // Rebuild the in-memory view after hibernation from the attachments.
    for (const ws of ctx.getWebSockets()) {
      const saved = ws.deserializeAttachment() as Attachment | null;
      if (saved)
        this.#states.set(ws, {
          cursor: saved.acked,
          acked: saved.acked,
          live: saved.live,
          heard: saved.heard ?? saved.acked,
          resumed: true,
        });
    }
    // Re-send each socket's unacknowledged tail (and whatever is new).
    if (this.#states.size > 0) this.publish();
  }

  get count(): number {
    return this.#states.size;
  }

  /**
   * Accepts a socket, announces the ack policy and sends everything after
   * `afterSeq` it has room for. A client resuming with Wires it still holds
   * as pending names the lowest (`anchorsFrom`): it is first told which of
   * `anchorsFrom..afterSeq` were anchored meanwhile (news told while it was
   * away, or held in memory when the object restarted, is not lost).
   */
  accept(ws: WebSocket, afterSeq: number, anchorsFrom: number | null = null): void {
    this.ctx.acceptWebSocket(ws);
    const state: SocketState = {
      cursor: afterSeq,
      acked: afterSeq,
      live: false,
      heard: this.source.lastSeq,
    };
    this.#states.set(ws, state);
    this.#save(ws, state);
    // Acks are what fan-out pays most for per socket (one incoming event
    // each), so the server asks for one per half window or per second, not
    // one per frame; a client may ack more often.
    const hello: Frame = {
      kind: 'hello',
      window: this.settings.window,
      ack_every: Math.max(1, Math.floor(this.settings.window / 2)),
      ack_ms: ACK_WITHIN_MS,
    };
    if (!this.#send(ws, JSON.stringify(hello))) return;
    if (anchorsFrom !== null && anchorsFrom >= 1 && anchorsFrom <= afterSeq) {
      if (!this.#resumeAnchors(ws, anchorsFrom, afterSeq)) return;
    }
    this.#pump(ws, state);
  }

  /**
   * Tells a resuming socket which of `anchorsFrom..afterSeq` were anchored
   * while it was away, `ANCHORS_PER_FRAME` to a frame, however long the span
   * (an HCS outage may leave thousands pending); false if the socket failed.
   */
  #resumeAnchors(ws: WebSocket, anchorsFrom: number, afterSeq: number): boolean {
    let from = anchorsFrom - 1;
    for (let told = 0; told < MAX_ANCHORS_ON_RESUME; ) {
      const page = this.source.anchoredAfter(from, afterSeq, ANCHORS_PER_FRAME);
      if (page.length === 0) return true;
      if (!this.#send(ws, JSON.stringify({ kind: 'anchored', wires: page }))) return false;
      told += page.length;
      from = (page.at(-1) as AnchorUpdate).stream_seq;
      if (page.length < ANCHORS_PER_FRAME) return true;
    }
    return true;
  }

  /**
   * Called after Wires were appended. The push is deferred by one macrotask so
   * Wires appended back to back coalesce into one frame per subscriber: under
   * load that sends fewer frames, which is what fan-out costs. With many
   * subscribers, flushes are also spaced `flushGapMs` apart: a Wire after a
   * quiet spell goes out at once, a Wire close behind the last flush waits
   * for the next one and shares its frame.
   */
  publish(): void {
    if (this.#flushScheduled || this.#states.size === 0) return;
    this.#flushScheduled = true;
    const wait =
      this.#lastFlush + flushGapMs(this.#states.size, this.settings.maxGapMs) - Date.now();
    setTimeout(
      () => {
        this.#flushScheduled = false;
        this.#lastFlush = Date.now();
        this.#flush();
      },
      Math.max(0, wait),
    );
  }

  /**
   * Tells live subscribers which Wires they hold are now on HCS: in the next
   * `wires` frame if Wires follow soon, else in a frame of its own after
   * `delayMs` (several Wires at a time either way).
   */
  announceAnchored(topic: string, fresh: AnchorRecord[]): void {
    if (fresh.length === 0 || this.#states.size === 0) return;
    this.#news.add(topic, fresh);
    if (this.#newsScheduled) return;
    this.#newsScheduled = true;
    setTimeout(() => {
      this.#newsScheduled = false;
      if (this.#news.empty) return; // a flush took it along
      const frames = this.#news.take();
      for (const [ws, state] of this.#states) {
        const text = frames.for(state.cursor);
        if (text !== null) this.#send(ws, text);
      }
    }, delayMs(this.#states.size));
  }

  #flush(): void {
    const head = this.source.lastSeq;
    const frames = new FrameCache(this.source);
    const news = this.#news.empty ? null : this.#news.take();
    for (const [ws, state] of this.#states) {
      // Live: behind its acks; replaying: behind the head it last heard of.
      const from = state.live || state.acked > state.heard ? state.acked : state.heard;
      if (head - from > 2 * this.settings.window) {
        this.#close(ws, SLOW_CONSUMER, `slow consumer: resume with after_seq=${state.cursor}`);
        continue;
      }
      const before = state.cursor;
      if (state.cursor < head || !state.live) this.#pump(ws, state, frames, news);
      // A socket that got no Wires now (its window is full) still hears the news.
      if (news !== null && state.cursor === before) {
        const text = news.for(before);
        if (text !== null) this.#send(ws, text);
      }
    }
  }

  onMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const state = this.#states.get(ws);
    if (!state) return;
    const ack = this.#ackOf(ws, state, message);
    if (typeof ack === 'string') {
      // Told, not fatal: the socket stays open and the frame is ignored.
      const error: Frame = { kind: 'error', detail: ack };
      this.#send(ws, JSON.stringify(error));
      return;
    }
    if (ack === null) return; // an old or repeated ack
    if (ack > state.cursor) state.cursor = ack;
    state.acked = ack;
    if (!state.live) state.heard = this.source.lastSeq;
    this.#save(ws, state);
    this.#pump(ws, state);
  }

  /** The seq a client frame acknowledges, null if nothing new, or why it is refused. */
  #ackOf(ws: WebSocket, state: SocketState, message: string | ArrayBuffer): number | null | string {
    if (typeof message !== 'string') return 'binary frames are not accepted; send JSON text';
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return 'frame is not JSON; expected {"kind":"ack","seq":N} or {"kind":"ping"}';
    }
    const kind =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as { kind?: unknown }).kind
        : undefined;
    if (kind === 'ping') {
      // Spelt differently from the runtime's auto-response (spaces, fields).
      this.#send(ws, '{"kind":"pong"}');
      return null;
    }
    if (kind !== 'ack') {
      return `unknown frame kind ${JSON.stringify(kind ?? null)}; expected "ack" or "ping"`;
    }
    const seq = (parsed as { seq?: unknown }).seq;
    if (!Number.isSafeInteger(seq) || (seq as number) < 0) {
      return `ack.seq must be a non-negative integer, got ${JSON.stringify(seq ?? null)}`;
    }
    const n = seq as number;
    if (n <= state.acked) return null;
    // Only a socket rebuilt after hibernation may ack past its cursor: it
    // was sent up to there before, so it need not be sent those again.
    const sent = state.resumed ? this.source.lastSeq : state.cursor;
    if (n > sent) return `ack.seq ${n} is past the last Wire sent (${sent})`;
    return n;
  }

  forget(ws: WebSocket): void {
    this.#states.delete(ws);
  }

  /**
   * Sends what the window has room for; `frames` is shared by a flush, made
   * here only if needed (an ack). Anchored `news` rides in the first frame.
   */
  #pump(
    ws: WebSocket,
    state: SocketState,
    frames?: FrameCache,
    news?: AnchoredFrames | null,
  ): void {
    const head = this.source.lastSeq;
    while (state.cursor < head) {
      const room = this.settings.window - (state.cursor - state.acked);
      if (room <= 0) break;
      frames ??= new FrameCache(this.source);
      const frame = frames.after(state.cursor, Math.min(room, FRAME_WIRES));
      if (!frame) break;
      const text = news ? news.withWires(frame.text, state.cursor) : frame.text;
      news = null;
      if (!this.#send(ws, text)) return;
      state.cursor = frame.last;
    }
    if (!state.live && state.cursor === head) {
      state.live = true;
      const caughtUp: Frame = { kind: 'caught-up', last_seq: head };
      if (this.#send(ws, JSON.stringify(caughtUp))) this.#save(ws, state);
    }
  }

  /** Persists what a socket needs after hibernation; the cursor is not (see above). */
  #save(ws: WebSocket, state: SocketState): void {
    const attachment: Attachment = { acked: state.acked, live: state.live, heard: state.heard };
    ws.serializeAttachment(attachment);
  }

  #send(ws: WebSocket, text: string): boolean {
    try {
      ws.send(text);
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
