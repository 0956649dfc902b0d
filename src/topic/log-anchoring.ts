import { readCheckpointMessage } from '../anchor/log/hcs27';
import { earlierKeys, SIGNER_KEY_PROBLEM } from '../anchor/log/keyring';
import {
  type NoteSigner,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  verifierKeyOf,
} from '../anchor/log/note';
import type { Env } from '../env';
import type { Sql } from '../kernel/sql';
import { type ArchiveStatus, LogArchiver } from './log-archive';
import {
  type AnchoringSettings,
  anchoringSettings,
  type ConsistencyView,
  logOrigin,
  type SettingSource,
  settingSources,
  TopicLogMode,
} from './log-mode';
import type { AnchorQueue } from './mirror-confirm';
import type { LogProof } from './stub';
import type { TopicLog } from './topic-log';

export interface LogAnchoringDeps {
  sql: Sql;
  log: TopicLog;
  env: Pick<
    Env,
    | 'ANCHOR_MODE'
    | 'LOG_CHECKPOINT_EVERY'
    | 'LOG_CHECKPOINT_MS'
    | 'LOG_SIGNER_KEY'
    | 'LOG_VERIFIER_KEYS'
    | 'LOG_ARCHIVE'
  >;
  /** The topic's HCS id, created on first use (`topic-id.ts`). */
  topicId(): Promise<string>;
  /** One pass of the anchoring loop over `queue` (`anchoring-loop.ts`); throws on a failed send. */
  send(queue: AnchorQueue, topicId: string): Promise<{ fresh: boolean; inFlight: boolean }>;
  /**
   * Why this topic cannot keep a log (`log-unavailable.ts`: its HCS topic is
   * shared, or the deployment's Wires may not fit a log entry); null when it can.
   */
  logUnavailable(): string | null;
}

/** The log's keys as proofs name them: the current one, and every one a checkpoint may be signed by. */
type LogKeyView = { log_origin: string; verifier_key: string; verifier_keys: string[] };

/** The deployment's log keys as `GET /v1/topics/{topic}/anchoring` shows them. */
export interface LogKeysView {
  verifier_keys: string[];
  /** What is wrong with `LOG_SIGNER_KEY` or `LOG_VERIFIER_KEYS`; null when nothing. */
  problem: string | null;
}

/** A topic's anchoring as `GET /v1/topics/{topic}/anchoring` shows it. */
export interface AnchoringView {
  own: Partial<AnchoringSettings> | null;
  settings: AnchoringSettings;
  /** The mode the topic anchors in now: `settings.mode`, but envelope while `log_unavailable`. */
  running_mode: 'envelope' | 'log';
  /** Why the topic runs envelope mode although its settings ask for a log; null otherwise. */
  log_unavailable: string | null;
  sources: Record<keyof AnchoringSettings, SettingSource>;
  archive: ArchiveStatus;
  log_keys: LogKeysView;
}

/**
 * The TopicObject's log mode (issue 31, `log-mode.ts`): which mode the topic
 * is in (the deployment's `ANCHOR_MODE` under the topic's own setting), its
 * anchoring pass in log mode, the deployment's log key, and the proofs.
 */
export class LogAnchoring {
  /** Made on first use: an envelope-mode topic never has log mode's tables. */
  #mode: TopicLogMode | null = null;
  /** Whether this object's SQLite held log tables when first asked (only `#log()` makes them). */
  #hadLog: boolean | null = null;
  #warnedUnavailable = false;
  #signer: Promise<NoteSigner> | null = null;
  /** The deployment's keys, read once: vars do not change while the object lives. */
  #keys: Promise<{ verifiers: NoteVerifier[]; problem: string | null }> | null = null;
  readonly #archive: LogArchiver;

  constructor(private readonly deps: LogAnchoringDeps) {
    this.#archive = new LogArchiver(deps.log, deps.env.LOG_ARCHIVE);
  }

  settings(): AnchoringSettings {
    const own = this.deps.log.get('anchoring');
    return anchoringSettings(this.deps.env, own === null ? null : JSON.parse(own));
  }

  /**
   * The mode the topic anchors in: its settings', except where a log is
   * unavailable. On an HCS topic it shares with another topic name: a
   * checkpoint names its log by the HCS topic (`logOrigin`) and the archive
   * keeps it under that id, so two names keeping logs there would sign two
   * trees under one name and overwrite each other's tiles. Under a
   * `WIRE_MAX_BYTES` whose Wires may not fit a tlog-tiles entry: the archive
   * would stop at the first such leaf. Such a topic anchors its Wires one
   * message each; a log it kept before is finished (`finish`), and its
   * proofs stay served.
   */
  mode(): 'envelope' | 'log' {
    if (this.settings().mode !== 'log') return 'envelope';
    const unavailable = this.deps.logUnavailable();
    if (unavailable === null) return 'log';
    if (!this.#warnedUnavailable) {
      this.#warnedUnavailable = true;
      console.warn(
        `topic ${this.deps.log.get('name')}: envelope mode, not log mode: ${unavailable}`,
      );
    }
    return 'envelope';
  }

  /** The topic's own settings (null: none), what they amount to, and where each comes from. */
  async view(): Promise<AnchoringView> {
    const raw = this.deps.log.get('anchoring');
    const own = raw === null ? null : (JSON.parse(raw) as Partial<AnchoringSettings>);
    const keys = await this.#verifiers();
    const settings = anchoringSettings(this.deps.env, own);
    const unavailable = settings.mode === 'log' ? this.deps.logUnavailable() : null;
    return {
      own,
      settings,
      running_mode: settings.mode === 'log' && unavailable === null ? 'log' : 'envelope',
      log_unavailable: unavailable,
      sources: settingSources(this.deps.env, own),
      archive: this.#archive.status(),
      log_keys: { verifier_keys: keys.verifiers.map(verifierKeyOf), problem: keys.problem },
    };
  }

  /** This topic's own settings over the deployment's. */
  set(own: Partial<AnchoringSettings>): AnchoringSettings {
    this.deps.log.set('anchoring', JSON.stringify(own));
    return this.settings();
  }

  /**
   * New Wires become leaves, due checkpoints are signed and sent as Wires are
   * in envelope mode, and confirmed ones give their Wires their anchor.
   */
  async pass(): Promise<{ fresh: boolean; inFlight: boolean; dueAt: number | null }> {
    const log = this.#log();
    const more = await log.grow();
    if (!log.busy()) return { fresh: more, inFlight: false, dueAt: null };
    const signer = await this.#signerKey();
    const topicId = await this.deps.topicId();
    const origin = logOrigin(signer, topicId);
    const dueAt = await log.checkpoint(signer, origin, this.settings(), Date.now());
    const sending = log.checkpoints.unanchored(1).length > 0;
    const pass = sending ? await this.deps.send(log.checkpoints, topicId) : { fresh: false };
    log.applyConfirmed(Date.now());
    const inFlight = log.checkpoints.unanchored(1).length > 0;
    return { fresh: more || pass.fresh, inFlight, dueAt };
  }

  /**
   * After a switch back to envelope mode: sends and applies the checkpoints
   * signed before it, so that their Wires are not sent again one message each
   * (envelope mode then sends only Wires no checkpoint holds). Null when none
   * is left, or the topic never kept a log.
   */
  async finish(): Promise<{ fresh: boolean; inFlight: boolean } | null> {
    if (!this.#hasLog()) return null;
    const log = this.#log();
    const sending = log.checkpoints.unanchored(1).length > 0;
    if (!sending && log.checkpoints.unapplied().length === 0) return null;
    const pass = sending
      ? await this.deps.send(log.checkpoints, await this.deps.topicId())
      : { fresh: false };
    log.applyConfirmed(Date.now());
    return { fresh: pass.fresh, inFlight: log.checkpoints.unanchored(1).length > 0 };
  }

  /**
   * Copies new checkpoints' tiles to R2 (`log-archive.ts`); never throws.
   * Returns when to come back (ms since the epoch), or null. A topic that
   * kept a log goes on copying the checkpoints `finish` sends after a switch
   * back; one whose log is unavailable and never kept one makes no log tables.
   */
  async archive(): Promise<number | null> {
    const used = this.mode() === 'log' || this.#hasLog();
    return used ? this.#archive.catchUp(this.#log(), Date.now()) : null;
  }

  /**
   * A Wire's inclusion in the confirmed checkpoint that anchored it; null for
   * a Wire anchored one message each (envelope mode, before or after a log).
   */
  async proof(streamId: string, wireId: string): Promise<LogProof | null> {
    const row = this.deps.log.byWire(streamId, wireId);
    if (row?.hcs_sequence_number == null || !this.#hasLog()) return null;
    const inclusion = await this.#log().inclusion(row.pos, row.message);
    return inclusion && { ...inclusion, ...(await this.#keyView()) };
  }

  /**
   * A consistency proof between two confirmed checkpoints; null if the topic
   * never kept a log (its checkpoints stay provable after a switch back).
   */
  async consistency(from: number, to: number): Promise<(ConsistencyView & LogKeyView) | null> {
    if (!this.#hasLog()) return null;
    return { ...(await this.#log().consistency(from, to)), ...(await this.#keyView()) };
  }

  /** Which of the Wires at `positions` are leaves of the log, and which leaf (none if never in log mode). */
  leavesAt(positions: number[]): Map<number, number> {
    const leaves = new Map<number, number>();
    if (!this.#hasLog()) return leaves;
    for (const pos of positions) {
      const leaf = this.#log().leaves.leafOf(pos);
      if (leaf !== null) leaves.set(pos, leaf);
    }
    return leaves;
  }

  /**
   * Whether `text` is a checkpoint message (HCS-27, `hcs27.ts`) whose metadata
   * agrees with its note, which this deployment's log key (or an earlier one,
   * `LOG_VERIFIER_KEYS`) signed for this topic.
   */
  async ownCheckpoint(text: string, topicId: string): Promise<boolean> {
    const read = readCheckpointMessage(text);
    const { verifiers } = read?.ok ? await this.#verifiers() : { verifiers: [] };
    const opened = read?.ok && verifiers.length > 0 ? await openNote(read.note, verifiers) : null;
    if (!opened?.ok) return false;
    return parseCheckpoint(opened.text)?.origin === logOrigin(opened.verifier, topicId);
  }

  #log(): TopicLogMode {
    this.#mode ??= new TopicLogMode(this.deps.sql, this.deps.log);
    return this.#mode;
  }

  /** Whether the topic has ever kept a log; asks SQLite once per object, and makes no tables. */
  #hasLog(): boolean {
    if (this.#mode !== null) return true;
    this.#hadLog ??=
      this.deps.sql`SELECT 1 AS n FROM sqlite_master WHERE name = 'log_leaves'`.length > 0;
    return this.#hadLog;
  }

  /** The deployment's log key (`LOG_SIGNER_KEY`), which signs every checkpoint. */
  #signerKey(): Promise<NoteSigner> {
    this.#signer ??= parseSignerKey(this.deps.env.LOG_SIGNER_KEY ?? '').then((signer) => {
      if (signer) return signer;
      throw new Error(`log mode needs ${SIGNER_KEY_PROBLEM}`);
    });
    return this.#signer;
  }

  /**
   * Every key this topic's checkpoints may be signed by, current first. A
   * malformed `LOG_VERIFIER_KEYS` leaves the current key alone (signing goes
   * on) and is reported, here and in the topic's anchoring view.
   */
  #verifiers(): Promise<{ verifiers: NoteVerifier[]; problem: string | null }> {
    this.#keys ??= (async () => {
      const signer = await this.#signerKey().catch(() => null);
      if (!signer) return { verifiers: [], problem: SIGNER_KEY_PROBLEM };
      const earlier = await earlierKeys(this.deps.env.LOG_VERIFIER_KEYS, signer);
      return earlier.ok
        ? { verifiers: [signer, ...earlier.value], problem: null }
        : { verifiers: [signer], problem: earlier.detail };
    })();
    return this.#keys;
  }

  async #keyView(): Promise<LogKeyView> {
    const signer = await this.#signerKey();
    const origin = logOrigin(signer, this.deps.log.get('hcs_topic_id') ?? '');
    const { verifiers } = await this.#verifiers();
    return {
      log_origin: origin,
      verifier_key: verifierKeyOf(signer),
      verifier_keys: verifiers.map(verifierKeyOf),
    };
  }
}
