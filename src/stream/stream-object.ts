import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { intVar } from '../env';
import type { AppendResult, Hold, ReceiptFields } from '../kernel/kind';
import { KindRunner } from '../kernel/kind-runner';
import { sqlOf } from '../kernel/sql';
import { REGISTRY } from '../modules';
import type { AnchorRecord, Draft, Receipt } from '../protocol';
import { fail } from '../protocol';
import { StreamAnchoring } from './anchoring';
import { decideAppend } from './decide-append';
import { streamStub } from './stub';
import { Subscribers } from './subscribers';
import { receiptOf, type StoredWire, type StreamInfo, WireLog } from './wire-log';

export type { AppendResult } from '../kernel/kind';

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
  readonly #kinds: KindRunner;
  readonly #anchoring: StreamAnchoring;
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#log = new WireLog(sqlOf(ctx.storage.sql));
    this.#anchoring = new StreamAnchoring(ctx, env);
    const source = this.#anchoring.source(this.#log); // Wires carry their HCS anchor
    this.#subscribers = new Subscribers(ctx, source, intVar(env.WS_MAX_BUFFERED_FRAMES, 1024));
    this.#kinds = new KindRunner({
      sql: sqlOf(ctx.storage.sql),
      log: this.#log,
      env,
      registry: REGISTRY,
      appendLocal: (draft) => {
        this.#commit(draft, undefined, undefined, null, true);
      },
      appendTo: (streamId, draft) => streamStub(env, streamId).append(draft),
    });
    // Keep-alives answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair('{"kind":"ping"}', '{"kind":"pong"}'),
    );
  }

  async append(draft: Draft, expectedSeq?: number, ifMatchSeq?: number): Promise<AppendResult> {
    // A kind that secures something on another object first (an await, so
    // `#commit` decides again afterwards); every other Wire goes straight on.
    const hold = await this.#kinds.prepare(draft, Date.now());
    if (hold && !hold.ok) return hold;
    const result = this.#commit(draft, expectedSeq, ifMatchSeq, hold);
    await this.#kinds.settle(hold, result.ok, draft);
    return result;
  }

  /**
   * Read, decide, write: one synchronous stretch. The kind's decision may add
   * verdict Wires after the command; all are stored before anything else
   * runs. `trusted` is for the kind's own Wires (not decided again).
   */
  #commit(
    draft: Draft,
    expectedSeq: number | undefined,
    ifMatchSeq: number | undefined,
    hold: Hold | null,
    trusted = false,
  ): AppendResult {
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
      const fields = this.#kinds.replayed(draft);
      return { ok: true, status: 200, receipt: { ...decision.receipt, ...fields }, replay: true };
    }
    const now = Date.now();
    const drafts = trusted ? [draft] : this.#kinds.decide(draft, this.#log.lastSeq + 1, now, hold);
    if (!Array.isArray(drafts)) return drafts as Exclude<typeof drafts, readonly unknown[]>;
    const at = new Date(now).toISOString();
    // The receipt is the command's (the first Draft); the kind's receipt
    // fields of every Wire of the decision are merged in order, so a verdict
    // Wire appended after the command answers the caller too.
    let first: Receipt | null = null;
    const fields: ReceiptFields = {};
    for (const next of drafts as readonly Draft[]) {
      const { receipt, wire } = this.#log.append(next, at);
      Object.assign(fields, this.#kinds.applied(wire, now));
      this.#anchoring.afterAppend(wire); // into the outbox, same synchronous stretch
      first ??= receipt;
    }
    this.#subscribers.publish();
    this.#armAlarm();
    if (!first) return fail('invalid-transition', 'the stream decided to append nothing');
    return { ok: true, status: 201, receipt: { ...first, ...fields }, replay: false };
  }

  /** One alarm for every scheduled job; each part says when it next needs to run. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    // The kind's timers first: the runner never throws here, so an anchoring
    // failure (which makes the runtime retry the alarm) cannot hold them back.
    await this.#kinds.alarm(Date.now());
    await this.#anchoring.onAlarm();
    this.#armAlarm();
  }

  #armAlarm(): void {
    const times = [this.#kinds.wakeAt(), this.#anchoring.wakeAt()];
    const at = times.reduce<number | null>(
      (a, t) => (t === null || (a !== null && a <= t) ? a : t),
      null,
    );
    // An alarm already due no later than `at` will run every job that is due
    // and arm the next one: setting it again on every append costs a storage
    // write and gains nothing.
    if (at === null || (this.#alarmAt !== null && this.#alarmAt <= at)) return;
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  /** The decision state of this stream's kind, through the kind's `view` hook. */
  coordination(): ReturnType<KindRunner['view']> {
    return this.#kinds.view(Date.now());
  }

  read(afterSeq: number, limit: number): ReadPage {
    const wires = this.#anchoring.decorate(this.#log.readAfter(afterSeq, limit));
    return { wires, last_seq: this.#log.lastSeq };
  }

  /** The stream's TopicObject reports where its Wires landed on HCS. */
  markAnchored(topic: string, anchors: AnchorRecord[]): number {
    const fresh = this.#anchoring.markAnchored(topic, anchors);
    this.#subscribers.announceAnchored(topic, fresh);
    return fresh.length;
  }

  /** Later Wires go to the stream's own HCS topic (or back to the shared one). */
  setDedicatedTopic(dedicated: boolean): { dedicated: boolean; role: string | null } {
    return this.#anchoring.setDedicated(dedicated);
  }

  /** A Wire an agent put on HCS directly: the same rules as `append`, never resubmitted. */
  ingestAnchored(
    draft: Draft,
    expectedSeq: number | undefined,
    topic: string,
    anchor: Omit<AnchorRecord, 'stream_seq'>,
  ): Promise<AppendResult> {
    return this.#anchoring.appendingAnchored(topic, anchor, () => this.append(draft, expectedSeq));
  }

  info(): StreamInfo | null {
    return this.#log.info();
  }

  /** Live subscribers and the head, so the Worker can refuse an upgrade it cannot serve. */
  subscription(): { subscribers: number; last_seq: number } {
    return { subscribers: this.#subscribers.count, last_seq: this.#log.lastSeq };
  }

  /** WebSocket upgrade: `GET …/ws?after_seq=N[&anchors_from=M]`, validated by the Worker. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json(fail('invalid-query', 'expected a WebSocket upgrade'), { status: 426 });
    }
    const query = new URL(request.url).searchParams;
    const afterSeq = Number(query.get('after_seq') ?? '0');
    const anchorsFrom = query.has('anchors_from') ? Number(query.get('anchors_from')) : null;
    const pair = new WebSocketPair();
    this.#subscribers.accept(pair[1], afterSeq, anchorsFrom);
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
      // 1005/1006 are reserved (RFC 6455 §7.4.1): never sent in a Close frame.
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
