/**
 * When a subscription acknowledges what its handler finished with.
 *
 * Every incoming ack is an event the server pays for per subscriber, so the
 * server's first frame, `{"kind":"hello","window":W,"ack_every":N,"ack_ms":T}`,
 * asks for one ack per `N` Wires (half its window) or within `T` ms of the
 * first unacknowledged one, whichever comes first. A server that sends no
 * `hello` (older ones) gets one ack per batch, as before.
 */
export interface AckHello {
  ack_every?: unknown;
  ack_ms?: unknown;
}

export class Acker {
  #every = 1;
  #ms = 0;
  #acked: number;
  #latest: number;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (seq: number) => void,
    start: number,
  ) {
    this.#acked = start;
    this.#latest = start;
  }

  configure(hello: AckHello): void {
    const every = Number(hello.ack_every);
    const ms = Number(hello.ack_ms);
    if (Number.isInteger(every) && every >= 1) this.#every = every;
    // Capped: the server closes a socket that is two windows behind anyway.
    if (Number.isFinite(ms) && ms >= 0) this.#ms = Math.min(ms, 10_000);
  }

  /** The handler finished with everything up to `seq`. */
  delivered(seq: number): void {
    this.#latest = Math.max(this.#latest, seq);
    if (this.#latest - this.#acked >= this.#every) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#ms);
  }

  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#latest <= this.#acked) return;
    this.#acked = this.#latest;
    this.send(this.#latest);
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
