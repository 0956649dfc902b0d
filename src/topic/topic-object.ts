import { DurableObject } from 'cloudflare:workers';
import { AnchorError, anchorFor } from '../anchor';
import { findOnMirror, readTopicMessages } from '../anchor/mirror';
import type { Env } from '../env';
import { admission } from '../kernel/append';
import { sqlOf } from '../kernel/sql';
import { REGISTRY } from '../modules';
import { PayloadSealer } from '../private/sealer';
import { signatureGuard } from '../private/signature-rule';
import { useSettings } from '../projection/reducer';
import { type StoredWire, type Wire, wireMessage } from '../protocol';
import { anchorPass, ConsensusSeen } from './anchoring-loop';
import { hcsFirstPolicy } from './hcs-first';
import { IdBlock } from './id-block';
import { type ListenResult, listenPass } from './listener';
import { type AnchoringView, LogAnchoring } from './log-anchoring';
import type { AnchoringSettings } from './log-mode';
import { logUnavailable } from './log-unavailable';
import type { AnchorQueue, MirrorCursor } from './mirror-confirm';
import { PROJECTION_RETRY_MS, passDelay } from './pass-delay';
import { ingestFound, notifyStreams, type StreamReports } from './stream-reports';
import type { AnchoredRow, HeldWire, IngestedWire, LogProof, TopicStatus, WireKey } from './stub';
import { directoryStub } from './topic-directory';
import { hcsTopicId } from './topic-id';
import { publicRow, TopicLog, txIdsOf } from './topic-log';
import { TopicProjection } from './topic-projection';
import { anchoredPage, anchoringView, topicStatus } from './topic-views';
import { wakeBy } from './wake-by';

/**
 * One HCS topic's writer (one instance per topic name: `roles.developer`,
 * `project.<id>`, `stream.<stream_id>`, `default`). Streams hand it Wires
 * through their outbox; its alarm submits them to HCS in arrival order,
 * reports the anchors back to the streams, and projects them. The Cron
 * Trigger calls `listen()` to check the topic against the mirror node.
 */
export class TopicObject extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;
  readonly #log: TopicLog;
  readonly #projection: TopicProjection;
  readonly #logAnchoring: LogAnchoring;
  readonly #sealer: PayloadSealer;
  readonly #reports: StreamReports;
  #failures = 0;
  #running: Promise<void> | null = null;
  readonly #sentAt = new Map<number, number>();
  readonly #consensus = new ConsensusSeen();
  readonly #mirrorCursor: MirrorCursor = { seq: null, hash: null };
  /** Work arrived while a pass was running: it reschedules itself at the end. */
  #dirty = false;
  #lastError: string | null = null;
  readonly #idBlock = new IdBlock(async (size) => {
    const [start = '0'] = await directoryStub(this.env).validStarts([size]);
    return start;
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Read models fold with this deployment's rules, as the deciders do.
    useSettings(env as unknown as Record<string, unknown>);
    this.#sql = sqlOf(ctx.storage.sql);
    this.#log = new TopicLog(this.#sql, ctx.storage);
    this.#projection = new TopicProjection(this.#sql);
    this.#sealer = new PayloadSealer(env);
    this.#reports = { env, log: this.#log };
    this.#logAnchoring = new LogAnchoring({
      sql: this.#sql,
      log: this.#log,
      env,
      topicId: () => this.#topicId(),
      send: (queue, topicId) => this.#send(queue, topicId),
      logUnavailable: () =>
        logUnavailable(env, this.#log.get('name') ?? 'default', this.#log.get('hcs_topic_id')),
    });
  }

  /**
   * Takes Wires from a stream's outbox; idempotent by stream and wire_id. A
   * private project's Wires are stored with their payload sealed in the
   * message anchored (src/private/); one that cannot be sealed is refused,
   * and the outbox keeps it.
   */
  accept(name: string, wires: StoredWire[]): number | Promise<number> {
    return this.#sealer.run(wires, (sealed) => {
      if (this.#log.get('name') === null) this.#log.set('name', name);
      const message = (w: Wire) => PayloadSealer.messageOf(sealed, w) ?? wireMessage(w);
      const added = this.#log.accept(wires, message, Date.now());
      this.#wake();
      this.#projectLater();
      return added;
    });
  }

  /**
   * Single flight: the runtime never overlaps alarms, but a direct call (a
   * test, a future RPC) could, and two passes interleaving at their awaits
   * would each pick transaction ids for the same Wire.
   */
  override alarm(): Promise<void> {
    this.#running ??= (async () => {
      do {
        this.#dirty = false;
        await this.#pass();
      } while (this.#dirty);
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /**
   * Each step is independent: D1 or a stream being down does not stop
   * anchoring. Projection is scheduled last, for new Wires (a retry if
   * `accept`'s own run failed) and new anchors alike, and not waited for.
   */
  async #pass(): Promise<void> {
    let again = false;
    let inFlight = false;
    let dueAt: number | null = null;
    try {
      const pass = await this.#anchorOnce();
      again = pass.fresh || again;
      inFlight = pass.inFlight;
      dueAt = pass.dueAt ?? null;
      this.#failures = 0;
      this.#lastError = null;
    } catch (error) {
      this.#failures++;
      this.#lastError = error instanceof Error ? error.message : String(error);
      console.warn(`topic ${this.#log.get('name')}: anchoring failed`, this.#lastError);
    }
    again = (await this.#step('reporting anchors', () => notifyStreams(this.#reports))) || again;
    // Log mode's R2 archive, after the anchors are on their way: a copy that catches up
    // on its own (with backoff when R2 fails), never in anchoring's way.
    const archiveAt = await this.#logAnchoring.archive();
    if (archiveAt !== null) dueAt = Math.min(dueAt ?? archiveAt, archiveAt);
    // Not awaited: the next pass need not wait for D1's gathering window.
    const projecting = this.#projection.pending();
    if (projecting) this.#projectLater();
    const delay = passDelay(this.#failures, again, inFlight, projecting, dueAt);
    // Set, not "wake by": this handler is the only scheduler while it runs.
    if (delay !== null) await this.ctx.storage.setAlarm(Date.now() + delay);
  }

  /** Work to do: the running pass will see it, or an alarm is set now. */
  #wake(): void {
    if (this.#running) {
      this.#dirty = true;
      return;
    }
    // Start now rather than when the alarm fires; the alarm stays set as the
    // durable fallback should this object be evicted mid-pass.
    wakeBy(this.ctx.storage, Date.now()).catch((e: unknown) =>
      console.warn('topic: alarm not set', e),
    );
    queueMicrotask(() => {
      this.alarm().catch((error: unknown) => console.warn('topic: pass failed', error));
    });
  }

  async #step(what: string, run: () => Promise<boolean>): Promise<boolean> {
    try {
      return await run();
    } catch (error) {
      console.warn(`topic ${this.#log.get('name')}: ${what} failed`, error);
      return true;
    }
  }

  async listen(): Promise<ListenResult> {
    const topicId = this.#log.get('hcs_topic_id');
    const name = this.#log.get('name') ?? 'unnamed';
    if (topicId === null)
      return { read: 0, listened_to_seq: 0, alerts: 0, ingested: 0, rejected: 0 };
    const { config } = anchorFor(this.env);
    const result = await listenPass({
      sql: this.#sql,
      log: this.#log,
      name,
      topicId,
      mirrorUrl: config.mirrorUrl,
      now: Date.now,
      hcsFirst: hcsFirstPolicy(this.env.HCS_FIRST, config.network),
      ownCheckpoint: (text) => this.#logAnchoring.ownCheckpoint(text, topicId),
      admit: (draft) => admission(this.env, draft, REGISTRY),
      signature: signatureGuard(this.env),
      alert: (alerts) => directoryStub(this.env).recordAlerts(alerts),
      ingest: (...found) => ingestFound(this.#reports, name, ...found),
    });
    // A Wire whose receipt was lost may just have been found on the mirror.
    this.#wake();
    return result;
  }

  anchored(afterSeq: number, limit: number): { hcs_topic_id: string | null; wires: AnchoredRow[] } {
    return anchoredPage(this.#log, this.#logAnchoring, afterSeq, limit);
  }

  find(streamId: string, wireId: string): AnchoredRow | null {
    const row = this.#log.byWire(streamId, wireId);
    return row ? publicRow(row) : null;
  }

  /**
   * Of Wires a rebuild read from HCS, those this topic took (anchored, or
   * ingested from an agent), with the sequence number it holds each at (null
   * while unconfirmed, with the ids it went out under). What it never took,
   * the listener refused or never saw.
   */
  held(wires: WireKey[]): HeldWire[] {
    const held: HeldWire[] = [];
    for (const { stream_id, wire_id } of wires) {
      const row = this.#log.byWire(stream_id, wire_id);
      if (!row) continue;
      const seq = row.hcs_sequence_number;
      held.push({
        stream_id,
        wire_id,
        hcs_sequence_number: seq,
        tx_ids: seq === null ? txIdsOf(row) : [],
      });
    }
    return held;
  }

  /**
   * The Wires agents put on HCS at these sequence numbers that the listener
   * ingested, as their streams took them: the message may lack what the
   * stream filled in (`stream_seq`, a Wire 1.0 body's `wire_id`).
   */
  ingested(seqs: number[]): IngestedWire[] {
    return this.#log.ingestedAt(seqs).map((row) => ({
      body: row.body,
      hcs_sequence_number: row.hcs_sequence_number ?? 0,
      consensus_timestamp: row.consensus_timestamp,
    }));
  }

  status(): TopicStatus {
    return topicStatus(this.#log, this.#projection, this.#lastError);
  }

  async #anchorOnce(): Promise<{ fresh: boolean; inFlight: boolean; dueAt?: number | null }> {
    if (this.#logAnchoring.mode() === 'log') return this.#logAnchoring.pass();
    const finishing = await this.#logAnchoring.finish();
    if (finishing !== null) return finishing;
    if (this.#log.unanchored(1).length === 0) return { fresh: false, inFlight: false };
    return this.#send(this.#log, await this.#topicId());
  }

  /** Submits a queue's messages in order (`anchoring-loop.ts`): the Wires, or the log's checkpoints. */
  async #send(queue: AnchorQueue, topicId: string): Promise<{ fresh: boolean; inFlight: boolean }> {
    const { anchor, config } = anchorFor(this.env);
    const pass = await anchorPass({
      anchor,
      log: queue,
      topicId,
      sentAt: this.#sentAt,
      consensus: this.#consensus,
      mirrorAfter: (afterSeq) => readTopicMessages(config.mirrorUrl, topicId, afterSeq),
      mirrorCursor: this.#mirrorCursor,
      now: Date.now,
      // Receipts live ~3 minutes; the mirror keeps every message.
      onMirror: (txId) => findOnMirror(config.mirrorUrl, topicId, txId),
      transactionIds: (sizes) => this.#transactionIds(sizes),
    });
    if (pass.error !== null) throw new AnchorError('retry', pass.error);
    return pass;
  }

  /** This topic's own anchoring settings over the deployment's (`ANCHOR_MODE`, `LOG_CHECKPOINT_*`). */
  setAnchoring(own: Partial<AnchoringSettings>): AnchoringSettings {
    const settings = this.#logAnchoring.set(own);
    this.#wake();
    return settings;
  }

  /** The topic's anchoring settings, their sources and the archive's progress. */
  anchoring(): Promise<AnchoringView & { name: string | null; hcs_topic_id: string | null }> {
    return anchoringView(this.#log, this.#logAnchoring);
  }

  /** A log-mode Wire's inclusion proof; null in envelope mode (`log-anchoring.ts`). */
  logProof(streamId: string, wireId: string): Promise<LogProof | null> {
    return this.#logAnchoring.proof(streamId, wireId);
  }

  /** A consistency proof between two confirmed checkpoints; null in envelope mode. */
  logConsistency(from: number, to: number): ReturnType<LogAnchoring['consistency']> {
    return this.#logAnchoring.consistency(from, to);
  }

  /** The HCS topic id (`topic-id.ts`): configured, or created on first use. */
  #topicId(): Promise<string> {
    return hcsTopicId({
      env: this.env,
      log: this.#log,
      transactionIds: (sizes) => this.#transactionIds(sizes),
    });
  }

  /** Transaction ids for messages of these sizes, from this object's block (`id-block.ts`). */
  #transactionIds(messageBytes: number[]): Promise<string[][]> {
    return this.#idBlock.transactionIds(anchorFor(this.env).anchor, messageBytes);
  }

  /**
   * D1 read models (src/projection/): projects within `PROJECT_EVERY_MS`
   * (see TopicProjection), Wires and their anchors together. If D1 failed,
   * or this object is evicted before then, the alarm is the backstop: it runs
   * a pass, which projects what is left.
   */
  #projectLater(): void {
    this.#projection
      .later(this.env.DB, () => this.#log.get('hcs_topic_id'))
      .then((left) =>
        left ? wakeBy(this.ctx.storage, Date.now() + PROJECTION_RETRY_MS) : undefined,
      )
      .catch((e: unknown) => console.warn('topic: projection not scheduled', e));
  }
}
