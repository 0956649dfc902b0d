import { SELF } from 'cloudflare:test';
import { authHeaders } from './auth';

interface WireFrame {
  stream_seq: number;
  wire_id: string;
}

/** A test subscriber on `/v1/streams/{id}/ws` that records what it sees. */
export class Subscriber {
  readonly seqs: number[] = [];
  readonly frames: { kind: string }[] = [];
  closed: { code: number; reason: string } | null = null;
  #waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    readonly ack: boolean,
  ) {
    ws.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as { kind: string; wires?: WireFrame[] };
      this.frames.push(frame);
      if (frame.kind === 'wires' && frame.wires) {
        for (const w of frame.wires) this.seqs.push(w.stream_seq);
        const last = frame.wires.at(-1);
        if (this.ack && last) ws.send(JSON.stringify({ kind: 'ack', seq: last.stream_seq }));
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

  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Waits until `predicate` holds or `ms` pass. */
  async until(predicate: () => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; saw seqs ${this.seqs.join(',')}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
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
