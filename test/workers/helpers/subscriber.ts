import { SELF } from 'cloudflare:test';
import { authHeaders } from './auth';

interface AnchorNews {
  stream_seq: number;
  anchor?: { status: string };
}

interface WireFrame extends AnchorNews {
  wire_id: string;
}

interface Frame {
  kind: string;
  wires?: WireFrame[];
  /** Anchors told along with a `wires` frame. */
  anchored?: AnchorNews[];
}

/** A test subscriber on `/v1/streams/{id}/ws` that records what it sees. */
export class Subscriber {
  readonly seqs: number[] = [];
  readonly frames: { kind: string }[] = [];
  /** Anchor status of every Wire seen, by stream_seq, as the frames told it. */
  readonly anchors = new Map<number, string>();
  closed: { code: number; reason: string } | null = null;
  #waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    readonly ack: boolean,
  ) {
    ws.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as Frame;
      this.frames.push(frame);
      if (frame.kind === 'wires' && frame.wires) {
        for (const w of frame.wires) this.seqs.push(w.stream_seq);
        const last = frame.wires.at(-1);
        if (this.ack && last) ws.send(JSON.stringify({ kind: 'ack', seq: last.stream_seq }));
      }
      if (frame.kind === 'wires' || frame.kind === 'anchored') {
        for (const w of [...(frame.wires ?? []), ...(frame.anchored ?? [])]) {
          if (w.anchor) this.anchors.set(w.stream_seq, w.anchor.status);
        }
      }
      this.#wake();
    });
    ws.addEventListener('close', (event) => {
      this.closed = { code: event.code, reason: event.reason };
      this.#wake();
    });
  }

  static async open(
    streamId: string,
    afterSeq: number,
    opts: { ack?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Subscriber> {
    const res = await SELF.fetch(
      `https://ws.test/v1/streams/${streamId}/ws?after_seq=${afterSeq}`,
      {
        headers: { Upgrade: 'websocket', ...(await authHeaders()), ...opts.headers },
      },
    );
    if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status}`);
    res.webSocket.accept();
    return new Subscriber(res.webSocket, opts.ack ?? true);
  }

  /** Caught up with the stream, and every Wire it holds was told as anchored. */
  allAnchored(): boolean {
    return (
      this.frames.some((f) => f.kind === 'caught-up') &&
      this.seqs.length > 0 &&
      this.seqs.every((seq) => this.anchors.get(seq) === 'anchored')
    );
  }

  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }

  /**
   * Waits until `predicate` holds, checking it on every frame and on close
   * (no timer polls); throws if `ms` pass first.
   */
  async until(predicate: () => boolean, ms = 5000): Promise<void> {
    let expired = false;
    const deadline = setTimeout(() => {
      expired = true;
      this.#wake();
    }, ms);
    try {
      while (!predicate()) {
        if (expired) throw new Error(`timed out; saw seqs ${this.seqs.join(',')}`);
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  close() {
    try {
      this.ws.close(1000, 'done');
    } catch {
      // already closed
    }
  }
}
