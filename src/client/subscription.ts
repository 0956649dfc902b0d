import { Acker, type AckHello } from './acker';
import { backoffDelay, sleep } from './backoff';
import { WirestreamError } from './errors';
import { ResumeCursor, resumeHint } from './resume-cursor';
import type { SubscribeOptions, SubscriptionDeps, SubscriptionState } from './subscription-types';
import type { AnchorUpdate, ServedWire, ServerFrame, SocketLike } from './types';

const OPEN = 1;
const CLOSE_GAP = 4000;
/** Wires still waiting for their anchor that a reconnect asks about (the server sends at most 1,000). */
const MAX_TRACKED_ANCHORS = 1000;

/**
 * A live feed that survives disconnects: it acknowledges what the handler is
 * done with (as often as the server's `hello` asks, see ./acker.ts), reconnects
 * with backoff, resumes from the last sequence
 * number it received (drops repeats, re-reads on a gap), and follows the
 * server's 4008 "slow consumer" hint by draining and resuming. No Wire is
 * delivered twice and none is skipped.
 */
export class Subscription {
  readonly #cursor: ResumeCursor;
  #delivered: number;
  #state: SubscriptionState = 'connecting';
  #socket: SocketLike | null = null;
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;
  #failure: unknown = null;
  #wake: (() => void) | null = null;
  readonly #abort = new AbortController();
  /**
   * stream_seq of delivered Wires not yet known to be anchored (with
   * `onAnchored`, on stream feeds). A reconnect asks for anchors from the
   * lowest (`anchors_from`): news told while the socket was down is not lost.
   * Insertion order is seq order, so the oldest go first past the cap.
   */
  readonly #unanchored = new Set<number>();
  readonly closed: Promise<void>;

  constructor(
    private readonly deps: SubscriptionDeps,
    private readonly options: SubscribeOptions,
  ) {
    const after = options.afterSeq ?? 0;
    this.#cursor = new ResumeCursor(after);
    this.#delivered = after;
    options.signal?.addEventListener('abort', () => this.close(), { once: true });
    this.closed = this.#run();
  }

  /** The last sequence number the handler finished with: resume here. */
  get lastSeq(): number {
    return this.#delivered;
  }

  get state(): SubscriptionState {
    return this.#state;
  }

  close(): void {
    this.#stopped = true;
    this.#abort.abort();
    this.#socket?.close(1000, 'client closed');
    this.#wake?.();
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.#stopped) {
      const outcome = await this.#connectOnce();
      // Deliver what already arrived before resuming, so memory stays bounded.
      await this.#chain;
      if (this.#failure !== null) {
        this.#setState('closed');
        throw this.#failure;
      }
      if (this.#stopped) break;
      if (outcome.opened) attempt = 0;
      else await this.#probe();
      if (this.#failure !== null) {
        this.#setState('closed');
        throw this.#failure;
      }
      const immediate = outcome.code === 4008 || outcome.code === CLOSE_GAP;
      const delayMs = immediate ? 0 : backoffDelay(attempt++, this.deps.reconnect);
      this.#setState('reconnecting', { reason: outcome.reason, delayMs });
      await sleep(delayMs, this.#abort.signal).catch(() => {});
    }
    this.#setState('closed');
  }

  /** Opens one socket and resolves when it closes. */
  async #connectOnce(): Promise<{ opened: boolean; code: number; reason: string }> {
    let url: string;
    let token: string | undefined;
    try {
      url = await this.#url();
      token = this.deps.wsAuth === 'protocol' ? await this.deps.http.token() : undefined;
    } catch (error) {
      // No ticket or token yet (server away, auth refused): the probe decides.
      return { opened: false, code: 0, reason: (error as Error).message };
    }
    if (this.#stopped) return { opened: false, code: 1000, reason: 'client closed' };
    this.#setState(this.#state === 'reconnecting' ? 'reconnecting' : 'connecting');
    return new Promise((resolve) => {
      let opened = false;
      let lastMessage = Date.now();
      let socket: SocketLike;
      try {
        socket = token
          ? new this.deps.WebSocket(url, ['wirestream', `wirestream.bearer.${token}`])
          : new this.deps.WebSocket(url);
      } catch (error) {
        resolve({ opened: false, code: 0, reason: (error as Error).message });
        return;
      }
      this.#socket = socket;
      const acker = new Acker((seq) => {
        if (socket.readyState === OPEN) socket.send(JSON.stringify({ kind: 'ack', seq }));
      }, this.#cursor.last);
      const pinger = setInterval(() => {
        if (Date.now() - lastMessage > this.deps.pingMs * 2.5)
          socket.close(4001, 'no answer to ping');
        else if (socket.readyState === OPEN) socket.send('{"kind":"ping"}');
      }, this.deps.pingMs);
      let finished = false;
      const finish = (code: number, reason: string) => {
        if (finished) return;
        finished = true;
        clearInterval(pinger);
        acker.stop();
        if (this.#socket === socket) this.#socket = null;
        this.#wake = null;
        resolve({ opened, code, reason });
      };
      this.#wake = () => finish(1000, 'client closed');
      socket.addEventListener('open', () => {
        opened = true;
        this.#setState('catching-up');
      });
      socket.addEventListener('message', (event) => {
        lastMessage = Date.now();
        this.#onMessage(socket, event.data, acker);
      });
      socket.addEventListener('close', (event) => finish(event.code, event.reason));
      socket.addEventListener('error', () => {
        // 'close' follows 'error' in every implementation; nothing to do here.
      });
    });
  }

  #onMessage(socket: SocketLike, data: unknown, acker: Acker): void {
    if (socket !== this.#socket || typeof data !== 'string') return;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(data) as ServerFrame;
    } catch {
      return;
    }
    if (frame.kind === 'wires' && Array.isArray(frame.wires)) {
      // News of Wires delivered before this frame rides along in it.
      if (Array.isArray(frame.anchored)) this.#announce(frame.anchored as AnchorUpdate[]);
      const seqOf = this.options.seqOf ?? ((w: ServedWire) => w.stream_seq);
      const { fresh, duplicates, gap } = this.#cursor.accept(frame.wires as ServedWire[], seqOf);
      // A Wire sent again (the server re-sends its unacknowledged tail after
      // hibernation, a replay may overlap) is dropped here as a repeat; the
      // anchor it may carry now is news of a Wire already delivered.
      if (duplicates > 0 && this.#unanchored.size > 0) this.#anchorsOfRepeats(frame.wires);
      if (fresh.length > 0) this.#deliver(fresh, seqOf, acker);
      if (gap) {
        // Something between the cursor and this frame never arrived: re-read it.
        this.options.onGap?.(gap);
        this.#socket = null;
        socket.close(CLOSE_GAP, `gap: expected ${gap.expected}, got ${gap.got}`);
      }
    } else if (frame.kind === 'hello') {
      acker.configure(frame as AckHello);
    } else if (frame.kind === 'caught-up') {
      const last = Number(frame.last_seq);
      this.#chain = this.#chain.then(() => {
        if (socket === this.#socket) this.#setState('live');
        this.options.onCaughtUp?.(last);
      });
    } else if (frame.kind === 'anchored' && Array.isArray(frame.wires)) {
      this.#announce(frame.wires as AnchorUpdate[]);
    } else if (frame.kind !== 'pong') {
      this.options.onFrame?.(frame);
    }
  }

  /** Queued behind delivery, so the handler has seen each Wire before its anchor. */
  #announce(updates: AnchorUpdate[]): void {
    for (const u of updates)
      if (u.anchor?.status === 'anchored') this.#unanchored.delete(u.stream_seq);
    this.#chain = this.#chain.then(() => this.options.onAnchored?.(updates));
  }

  /**
   * Anchors carried by repeated Wires: the object woken from hibernation by
   * the anchors' report re-sends its unacknowledged tail already anchored,
   * and tells no separate news of it.
   */
  #anchorsOfRepeats(wires: ServedWire[]): void {
    const news: AnchorUpdate[] = [];
    for (const w of wires) {
      if (w.anchor?.status === 'anchored' && this.#unanchored.has(w.stream_seq)) {
        news.push({ wire_id: w.wire_id, stream_seq: w.stream_seq, anchor: w.anchor });
      }
    }
    if (news.length > 0) this.#announce(news);
  }

  #tracksAnchors(): boolean {
    return this.options.onAnchored !== undefined && this.options.seqOf === undefined;
  }

  #deliver(wires: ServedWire[], seqOf: (w: ServedWire) => number, acker: Acker): void {
    const last = seqOf(wires[wires.length - 1] as ServedWire);
    if (this.#tracksAnchors()) {
      for (const w of wires)
        if (w.anchor?.status !== 'anchored') this.#unanchored.add(w.stream_seq);
      for (const seq of this.#unanchored) {
        if (this.#unanchored.size <= MAX_TRACKED_ANCHORS) break;
        this.#unanchored.delete(seq);
      }
    }
    this.#chain = this.#chain.then(async () => {
      if (this.#failure !== null) return;
      try {
        await this.options.onWires(wires);
      } catch (error) {
        this.#failure = error;
        this.close();
        return;
      }
      this.#delivered = last;
      acker.delivered(last);
    });
  }

  async #url(): Promise<string> {
    const url = new URL(this.deps.http.url(this.deps.path));
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('after_seq', String(this.#cursor.last));
    if (this.#tracksAnchors() && this.#unanchored.size > 0) {
      url.searchParams.set('anchors_from', String(Math.min(...this.#unanchored)));
    }
    if (this.deps.wsAuth === 'ticket' && (await this.deps.http.token())) {
      const { body } = await this.deps.http.request<{ ticket: string }>('POST', '/v1/tickets', {
        body: {},
      });
      url.searchParams.set('ticket', body.ticket);
    }
    return url.toString();
  }

  /**
   * A socket that never opened says nothing about why. Ask over HTTP: a 4xx
   * other than "needs an upgrade" (unknown route, bad stream id, no access)
   * will not get better by retrying, so the subscription stops with it.
   */
  async #probe(): Promise<void> {
    try {
      const at = `${this.deps.path}?after_seq=${this.#cursor.last}`;
      await this.deps.http.request('GET', at, { retry: false });
    } catch (error) {
      if (
        error instanceof WirestreamError &&
        !error.retryable &&
        error.code !== 'invalid-header' &&
        error.status !== 426
      ) {
        this.#failure = error;
      }
    }
  }

  #setState(state: SubscriptionState, detail?: { reason?: string; delayMs?: number }): void {
    if (state === this.#state && state !== 'reconnecting') return;
    this.#state = state;
    this.options.onState?.(state, detail);
  }
}

export { resumeHint };
