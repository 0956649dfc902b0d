import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import type { AppendResult, Hold, ReceiptFields } from '../kernel/kind';
import type { KindRunner } from '../kernel/kind-runner';
import { Outbox } from '../kernel/outbox';
import { sqlOf } from '../kernel/sql';
import type { Endpoint } from '../kernel/webhooks/endpoint';
import type {
  DeliveryAttempt,
  MessageStatus,
  UnroutedWebhook,
  WebhookMessage,
} from '../kernel/webhooks/schema';
import { webhookSettings } from '../kernel/webhooks/settings';
import { Webhooks } from '../kernel/webhooks/store';
import type { AnchorRecord, Draft, Failure, Receipt, Wire } from '../protocol';
import { fail } from '../protocol';
import { entrySizeCheck } from '../topic/log-unavailable';
import { StreamAnchoring } from './anchoring';
import { appendAll, withIndex } from './append-many';
import { decideAppend, storedOr } from './decide-append';
import { fanOutSettings } from './fan-out-settings';
import { SeqWaiters } from './seq-waiters';
import { acceptUpgrade, echoClose } from './sockets';
import { streamKinds } from './stream-kinds';
import type { AppendManyResult, ReadPage } from './stub';
import { Subscribers } from './subscribers';
import { type StoredWire, type StreamInfo, WireLog } from './wire-log';

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
  readonly #outbox: Outbox;
  readonly #webhooks: Webhooks;
  #alarmAt: number | null = null;
  readonly #waiters: SeqWaiters;
  /** Whether a Wire fits a log entry once anchored (`topic/log-unavailable.ts`). */
  readonly #fits: (wire: Wire) => Failure | null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = sqlOf(ctx.storage.sql);
    this.#log = new WireLog(sql);
    this.#fits = entrySizeCheck(env);
    this.#waiters = new SeqWaiters(() => this.#log.lastSeq);
    this.#outbox = new Outbox(sql, () => this.#armAlarm());
    this.#anchoring = new StreamAnchoring(sql, env, this.#outbox, this.#log);
    this.#webhooks = new Webhooks(sql, this.#outbox, webhookSettings(env), (change) =>
      ctx.storage.transactionSync(change),
    );
    const source = this.#anchoring.source(this.#log); // Wires carry their HCS anchor
    this.#subscribers = new Subscribers(ctx, source, fanOutSettings(env));
    this.#kinds = streamKinds(sql, env, this.#log, this.#outbox, this.#webhooks, (draft) => {
      this.#commit(draft, undefined, undefined, null, true);
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
   * The replay of `draft` (200, the original receipt) if its wire_id is
   * stored with this content; null otherwise. Stores nothing: the kernel asks
   * when a guard before the stream refused a retry (`kernel/append.ts`).
   */
  replayOf(draft: Draft): AppendResult | null {
    const command = { draft, expectedSeq: undefined, ifMatchSeq: undefined };
    const found = storedOr(this.#log, this.#kinds, command, null);
    return found.ok ? found : null;
  }

  /** Appends `drafts` in order, all or nothing (`append-many.ts`). */
  appendMany(drafts: readonly Draft[]): Promise<AppendManyResult> {
    const seq = this.#log.lastSeq;
    for (const [index, draft] of drafts.entries()) {
      const tooLarge = this.#fits({ ...draft, stream_seq: seq + 1 + index });
      if (tooLarge) return Promise.resolve(withIndex(tooLarge, index));
    }
    return appendAll(this.#log, this.#kinds, this.#commitAll, drafts);
  }

  /** `appendAll`'s stretch: every draft committed with its hold, in order. */
  readonly #commitAll = (drafts: readonly Draft[], holds: readonly (Hold | null)[]) =>
    drafts.map((d, i) => this.#commit(d, undefined, undefined, holds[i] ?? null));

  /** Resolves with the last seq once it passes `seq`, or after `ms` (a long poll). */
  waitPast(seq: number, ms: number): Promise<number> {
    return this.#waiters.waitPast(seq, ms);
  }

  /**
   * Read, decide, write: one synchronous stretch. The kind's decision may add
   * verdict Wires after the command; all are stored before anything else
   * runs. `trusted` is for the kind's own Wires (not decided again).
   *
   * Idempotency comes first (a retry of a stored Wire gets its receipt even
   * if the stream moved on or the kind would now refuse it), but the stored
   * Wire is looked up only when something says it may exist: a refusal, or
   * the command's INSERT finding its wire_id taken. A new Wire, nearly every
   * append, costs no lookup.
   */
  #commit(
    draft: Draft,
    expectedSeq: number | undefined,
    ifMatchSeq: number | undefined,
    hold: Hold | null,
    trusted = false,
  ): AppendResult {
    const lastSeq = this.#log.lastSeq;
    const command = { draft, expectedSeq, ifMatchSeq };
    const fresh = decideAppend(command, { lastSeq, existing: null });
    if (!fresh.ok) return storedOr(this.#log, this.#kinds, command, fresh);
    const now = Date.now();
    const drafts = trusted ? [draft] : this.#kinds.decide(draft, lastSeq + 1, now, hold);
    if (!Array.isArray(drafts)) return storedOr(this.#log, this.#kinds, command, drafts as Failure);
    const decided = drafts as readonly Draft[];
    // A decision that does not store the command first is checked the old way.
    const commandFirst = decided[0]?.wire_id === draft.wire_id;
    if (!commandFirst && this.#log.findByWireId(draft.wire_id))
      return storedOr(this.#log, this.#kinds, command, null);
    // Every Wire must fit what its topic may anchor, checked before any is written.
    for (const [i, next] of decided.entries()) {
      const tooLarge = this.#fits({ ...next, stream_seq: lastSeq + 1 + i });
      if (tooLarge) return storedOr(this.#log, this.#kinds, command, tooLarge);
    }
    const at = new Date(now).toISOString();
    // The receipt is the command's (the first Draft); the kind's receipt
    // fields of every Wire of the decision are merged in order, so a verdict
    // Wire appended after the command answers the caller too.
    let first: Receipt | null = null;
    const fields: ReceiptFields = {};
    type Appended = ReturnType<WireLog['append']>;
    for (const next of decided) {
      const appended: Appended | null =
        commandFirst && first === null
          ? this.#log.appendIfNew(next, at)
          : this.#log.append(next, at);
      // Taken: nothing is written yet, and the stored Wire answers.
      if (appended === null) return storedOr(this.#log, this.#kinds, command, null);
      const { receipt, wire }: Appended = appended;
      Object.assign(fields, this.#kinds.applied(wire, now));
      // Into the outbox, same synchronous stretch: to the topic, to subscribed endpoints.
      this.#anchoring.afterAppend(wire, now);
      this.#webhooks.forward(wire, now);
      first ??= receipt;
    }
    this.#subscribers.publish();
    this.#armAlarm();
    this.#waiters.appended();
    if (!first) return fail('invalid-transition', 'the stream decided to append nothing');
    return { ok: true, status: 201, receipt: { ...first, ...fields }, replay: false };
  }

  /** One alarm for every scheduled job; each part says when it next needs to run. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    // The kind's timers first: the runner never throws here, so an anchoring
    // failure (which makes the runtime retry the alarm) cannot hold them back.
    await this.#kinds.alarm(Date.now());
    await this.#outbox.onAlarm();
    this.#armAlarm();
  }

  #armAlarm(): void {
    const times = [this.#kinds.wakeAt(), this.#outbox.wakeAt()];
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

  /** The Wires at `seqs` (at most 500), in seq order; seqs the stream does not hold are left out. */
  readSeqs(seqs: number[]): StoredWire[] {
    return this.#anchoring.decorate(this.#log.readSeqs(seqs));
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

  /** Registers a webhook endpoint on this stream (`kernel/webhooks/endpoint.ts`). */
  registerWebhook(input: unknown): { ok: true; endpoint: Endpoint; secret: string } | Failure {
    return this.#webhooks.register(input, Date.now());
  }

  /** Removes an endpoint: what it still owed is dead-lettered, nothing reaches a later one. */
  removeWebhook(id: string): { ok: true } | Failure {
    return this.#webhooks.remove(id, Date.now());
  }

  /** A new signing secret; the old one signs beside it for `graceSeconds`. */
  rotateWebhookSecret(
    id: string,
    graceSeconds?: number,
  ): { ok: true; secret: string; previous_expires_at: string } | Failure {
    return this.#webhooks.rotate(id, Date.now(), graceSeconds);
  }

  enableWebhook(id: string, enabled: boolean): Failure | null {
    return this.#webhooks.enable(id, enabled, Date.now());
  }

  webhooks(): Endpoint[] {
    return this.#webhooks.endpoints(Date.now());
  }

  webhookUnrouted(): UnroutedWebhook[] {
    return this.#webhooks.unrouted();
  }

  webhookLog(id: string, limit?: number): DeliveryAttempt[] {
    return this.#webhooks.attempts(id, limit);
  }

  webhookMessages(id: string, status?: MessageStatus, limit?: number): WebhookMessage[] {
    return this.#webhooks.messages(id, status, limit);
  }

  /** Delivers a message again: same `webhook-id`, a new series of attempts. */
  replayWebhook(endpointId: string, messageId: string): { ok: true } | Failure {
    const now = Date.now();
    const result = this.#webhooks.replay(endpointId, messageId, now);
    this.#armAlarm();
    return result;
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
    return acceptUpgrade(this.#subscribers, request);
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
    echoClose(ws, code, reason);
  }

  override webSocketError(ws: WebSocket, error: unknown): void {
    this.#subscribers.forget(ws);
    console.warn('webSocketError', error);
  }
}
