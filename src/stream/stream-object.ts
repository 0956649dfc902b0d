import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { intVar } from '../env';
import type { Draft, Failure, Receipt } from '../protocol';
import { fail } from '../protocol';
import { decideAppend } from './decide-append';
import { sqlOf } from './sql';
import { Subscribers } from './subscribers';
import { receiptOf, type StoredWire, type StreamInfo, WireLog } from './wire-log';

export type AppendResult =
  | { ok: true; status: 201 | 200; receipt: Receipt; replay: boolean }
  | Failure;

export interface ReadPage {
  wires: StoredWire[];
  last_seq: number;
}

/**
 * The sequencer of one stream (one instance per `stream_id`). Everything in
 * `append` runs in one synchronous stretch over SQLite, so the input gate keeps
 * other requests out and `stream_seq` is gap-free without locks; the output
 * gate holds the reply until the write is durable, so a 201 means stored.
 * https://blog.cloudflare.com/durable-objects-easy-fast-correct-choose-three/
 */
export class StreamObject extends DurableObject<Env> {
  readonly #log: WireLog;
  readonly #subscribers: Subscribers;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#log = new WireLog(sqlOf(ctx.storage.sql));
    this.#subscribers = new Subscribers(ctx, this.#log, intVar(env.WS_MAX_BUFFERED_FRAMES, 1024));
    // Keep-alives answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair('{"kind":"ping"}', '{"kind":"pong"}'),
    );
  }

  append(draft: Draft, expectedSeq?: number, ifMatchSeq?: number): AppendResult {
    const existing = this.#log.findByWireId(draft.wire_id);
    const decision = decideAppend(
      { draft, expectedSeq, ifMatchSeq },
      {
        lastSeq: this.#log.lastSeq,
        existing: existing && {
          receipt: receiptOf(existing.wire, existing.wire.received_at),
          identity: existing.identity,
        },
      },
    );
    if (!decision.ok) return decision;
    if (decision.kind === 'replay') {
      return { ok: true, status: 200, receipt: decision.receipt, replay: true };
    }
    const { receipt } = this.#log.append(draft, new Date().toISOString());
    this.#subscribers.publish();
    return { ok: true, status: 201, receipt, replay: false };
  }

  read(afterSeq: number, limit: number): ReadPage {
    return { wires: this.#log.readAfter(afterSeq, limit), last_seq: this.#log.lastSeq };
  }

  info(): StreamInfo | null {
    return this.#log.info();
  }

  /** Live subscribers, so the Worker can refuse an upgrade past the cap. */
  subscriberCount(): number {
    return this.#subscribers.count;
  }

  /** WebSocket upgrade: `GET …/ws?after_seq=N`, validated by the Worker. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json(fail('invalid-query', 'expected a WebSocket upgrade'), { status: 426 });
    }
    const afterSeq = Number(new URL(request.url).searchParams.get('after_seq') ?? '0');
    const pair = new WebSocketPair();
    this.#subscribers.accept(pair[1], afterSeq);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    try {
      this.#subscribers.onMessage(ws, message);
    } catch (error) {
      console.error('webSocketMessage failed', error);
    }
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    this.#subscribers.forget(ws);
    try {
      // 1005/1006 are reserved and may not be sent back (DESIGN.md).
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch (error) {
      console.warn('webSocketClose: close failed', error);
    }
  }

  override webSocketError(ws: WebSocket, error: unknown): void {
    this.#subscribers.forget(ws);
    console.warn('webSocketError', error);
  }
}
