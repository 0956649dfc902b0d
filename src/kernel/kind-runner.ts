import type { Env } from '../env';
import { type Draft, type Failure, fail, type Wire } from '../protocol';
import type { WireLog } from '../stream/wire-log';
import { streamDelivery } from './deliveries/stream';
import type {
  AppendResult,
  Effect,
  Hold,
  PortEffect,
  ReceiptFields,
  StreamKind,
  WebhookEffect,
} from './kind';
import type { Outbox, Parcel } from './outbox';
import type { Registry } from './registry';
import { firstRow, rowShape, type Sql, schemaGate } from './sql';

const META_VALUE = rowShape('meta', { value: 'text' });
const STATE_ROW = rowShape('coord_state', { version: 'number', seq: 'number', state: 'text' });

/** The kernel's own version of the stored-state row; a kind's `version` adds to it. */
const RUNNER_VERSION = 2;

/**
 * The most a stream's decision state may take as JSON (UTF-8 bytes): a
 * Durable Object's SQLite row, and the D1 row a read model copies it into,
 * hold at most 2 MB. A decision that would leave a larger state is refused
 * before anything is stored (409 `invalid-transition`), never stored and then
 * failed.
 */
export const MAX_STATE_BYTES = 1_800_000;

/**
 * Null when `json` fits a stream's state, else its UTF-8 length (counted only
 * when its UTF-16 length cannot settle it).
 */
function fitsState(json: string): number | null {
  if (json.length * 3 <= MAX_STATE_BYTES) return null;
  const bytes = new TextEncoder().encode(json).length;
  return bytes <= MAX_STATE_BYTES ? null : bytes;
}

/** The states a decision's Wires leave, worked out before they are stored (`decide`). */
interface Staged {
  seq: number;
  wireIds: string[];
  states: unknown[];
  /** The last state as JSON: what `#save` writes after the decision's last Wire. */
  json: string;
}

export interface RunnerDeps {
  sql: Sql;
  log: WireLog;
  env: Env;
  registry: Registry;
  /** Appends a Wire of this stream written by the kind itself (trusted: not decided). */
  appendLocal(draft: Draft): void;
  /** Appends a Wire to another stream over RPC. */
  appendTo(streamId: string, draft: Draft): Promise<AppendResult>;
  /** The object's outbox: effects on other streams go through it (`via: 'stream'`). */
  outbox: Outbox;
  /** Records a webhook the kind sends (in the same stretch). */
  sendWebhook(effect: WebhookEffect, now: number): void;
}

/**
 * The protocol side of one StreamObject: runs the stream kind's decider
 * inside the shell's synchronous append, keeps the evolved state in a SQLite
 * row (rebuilt from the log when missing or stale), records effects on other
 * streams in the durable outbox in the same stretch, and delivers them inline
 * or from the alarm. The only awaits are a kind's `reserve` hook before the
 * decision (after which the shell decides again) and effect delivery after
 * the append (`settle`). Streams of no registered kind pass straight through.
 */
export class KindRunner {
  readonly #outbox: Outbox;
  #streamId: string | null = null;
  #kind: StreamKind | null = null;
  #cfg: unknown = null;
  #state: unknown = null;
  #staged: Staged | null = null;
  #fresh: Parcel[] = [];

  constructor(private readonly deps: RunnerDeps) {
    schemaGate(deps.sql, 'kind-state', 1, () => {
      deps.sql`CREATE TABLE IF NOT EXISTS coord_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL
      )`;
    });
    this.#outbox = deps.outbox;
    this.#outbox.use(
      streamDelivery({
        appendTo: (streamId, draft) => deps.appendTo(streamId, draft),
        refused: (effect, failure) => this.#onRefused(effect, failure),
      }),
    );
    const known = firstRow(META_VALUE, deps.sql`SELECT value FROM meta WHERE key = 'stream_id'`);
    if (known) this.#bind(known.value);
  }

  #version(kind: StreamKind): number {
    return RUNNER_VERSION * 1000 + kind.version;
  }

  #bind(streamId: string): void {
    if (this.#streamId === streamId) return;
    this.#streamId = streamId;
    const kind = this.deps.registry.kindOf(streamId);
    this.#kind = kind;
    if (!kind) return;
    this.#cfg = kind.config(this.deps.env);
    const { sql, log } = this.deps;
    const row = firstRow(STATE_ROW, sql`SELECT version, seq, state FROM coord_state WHERE id = 1`);
    if (row && row.version === this.#version(kind) && row.seq === log.lastSeq) {
      this.#state = JSON.parse(row.state);
      return;
    }
    let state = kind.decider.initialState();
    for (let after = 0; ; ) {
      const page = log.readAfter(after, 500);
      const last = page.at(-1);
      if (!last) break;
      for (const { received_at: _at, ...wire } of page)
        state = kind.decider.evolve(state, wire, this.#cfg);
      after = last.stream_seq;
    }
    this.#state = state;
    this.#save();
  }

  #save(json = JSON.stringify(this.#state)): void {
    if (!this.#kind) return;
    this.deps.sql`INSERT OR REPLACE INTO coord_state (id, version, seq, state)
      VALUES (1, ${this.#version(this.#kind)}, ${this.deps.log.lastSeq}, ${json})`;
  }

  /**
   * Phase one of a cross-object step: the kind's `reserve` hook, awaited
   * before the decision. Null when the kind secures nothing for `draft`.
   */
  async prepare(draft: Draft, now: number): Promise<Hold | Failure | null> {
    this.#bind(draft.stream_id);
    const reserve = this.#kind?.hooks?.reserve;
    if (!reserve) return null;
    const seq = this.deps.log.lastSeq + 1;
    return reserve(draft, this.#state, {
      now,
      cfg: this.#cfg,
      // A replay secures nothing: the synchronous path answers it.
      isReplay: () => this.deps.log.findByWireId(draft.wire_id) !== null,
      check: (hold) => {
        const decided = this.decide(draft, seq, now, hold);
        return Array.isArray(decided) ? null : (decided as Failure);
      },
      appendTo: (streamId, other) => this.deps.appendTo(streamId, other),
      send: (effect) => this.#send(effect, now),
    });
  }

  /**
   * Runs the decider for `draft` as the Wire at `seq`: the Drafts to append
   * (the command first) or a Failure. Streams of no kind append as sent.
   */
  decide(draft: Draft, seq: number, now: number, hold: Hold | null): readonly Draft[] | Failure {
    this.#bind(draft.stream_id);
    const kind = this.#kind;
    if (!kind) return [draft];
    const decided = kind.decider.decide({ ...draft, stream_seq: seq }, this.#state, {
      now,
      cfg: this.#cfg,
      hold,
    });
    if (!Array.isArray(decided)) return decided as Failure;
    // The states these Wires leave, so one that cannot be kept refuses the
    // decision before anything is stored; `applied` takes them as they are.
    const drafts = decided as readonly Draft[];
    const states: unknown[] = [];
    let state = this.#state;
    for (const [i, next] of drafts.entries()) {
      state = kind.decider.evolve(state, { ...next, stream_seq: seq + i }, this.#cfg);
      states.push(state);
    }
    const json = JSON.stringify(state);
    const bytes = fitsState(json);
    if (bytes !== null) {
      return fail(
        'invalid-transition',
        `${draft.stream_id} cannot take this ${draft.type}: its decision state would grow to ${bytes} bytes of JSON, and a stream keeps at most ${MAX_STATE_BYTES}`,
      );
    }
    this.#staged = { seq, wireIds: drafts.map((d) => d.wire_id), states, json };
    return drafts;
  }

  /**
   * The dry run of a batch: decides each draft against the state the earlier
   * ones would leave (pure: nothing stored, nothing kept). The position in
   * `drafts` of the first refusal, or null when all would be accepted.
   */
  check(
    drafts: readonly { draft: Draft; hold: Hold | null }[],
    now: number,
  ): { at: number; failure: Failure } | null {
    const first = drafts[0];
    if (!first) return null;
    this.#bind(first.draft.stream_id);
    const kind = this.#kind;
    if (!kind) return null;
    let state = this.#state;
    let seq = this.deps.log.lastSeq + 1;
    for (const [at, { draft, hold }] of drafts.entries()) {
      const decided = kind.decider.decide({ ...draft, stream_seq: seq }, state, {
        now,
        cfg: this.#cfg,
        hold,
      });
      if (!Array.isArray(decided)) return { at, failure: decided as Failure };
      for (const next of decided as readonly Draft[]) {
        state = kind.decider.evolve(state, { ...next, stream_seq: seq }, this.#cfg);
        seq += 1;
      }
    }
    return null;
  }

  /** Evolves the state with a stored Wire and records its effects; returns receipt members. */
  applied(wire: Wire, now: number): ReceiptFields | null {
    const kind = this.#kind;
    if (!kind) return null;
    const before = this.#state;
    const staged = this.#staged;
    const at = staged ? wire.stream_seq - staged.seq : -1;
    if (staged && staged.wireIds[at] === wire.wire_id) {
      this.#state = staged.states[at];
      const last = at === staged.wireIds.length - 1;
      if (last) this.#staged = null;
      this.#save(last ? staged.json : undefined);
    } else {
      this.#staged = null;
      this.#state = kind.decider.evolve(before, wire, this.#cfg);
      this.#save();
    }
    for (const effect of kind.decider.react?.(before, this.#state, wire) ?? []) {
      if (effect.via === 'http') this.deps.sendWebhook(effect, now);
      else if (effect.via === 'port') this.#sendToPort(effect, wire, now);
      else this.#send(effect, now);
    }
    return kind.hooks?.receipt?.(this.#state, wire, false) ?? null;
  }

  /** Receipt members for a replayed Wire. */
  replayed(draft: Draft): ReceiptFields | null {
    this.#bind(draft.stream_id);
    return this.#kind?.hooks?.receipt?.(this.#state, draft, true) ?? null;
  }

  /** Phase two: give back an unused hold, then deliver the effects just recorded. */
  async settle(hold: Hold | Failure | null, committed: boolean, draft: Draft): Promise<void> {
    const now = Date.now();
    const cancel = this.#kind?.hooks?.cancel;
    if (hold?.ok && !committed && cancel) this.#send(cancel(hold, draft, now, this.#cfg), now);
    if (this.#fresh.length === 0) return;
    const rows = this.#fresh;
    this.#fresh = [];
    await this.#outbox.deliver(rows);
  }

  #send(effect: Effect, now: number): void {
    const posting = { via: 'stream', target: effect.target, body: JSON.stringify(effect.draft) };
    this.#fresh.push(
      this.#outbox.add(effect.tag === undefined ? posting : { ...posting, tag: effect.tag }, now),
    );
  }

  /** Resolves a port effect through the registry into the Wire it sends. */
  #sendToPort(effect: PortEffect, wire: Wire, now: number): void {
    const port = this.deps.registry.port(effect.port);
    const resolved = port?.(effect.input, wire) ?? null;
    if (resolved) this.#send(resolved, now);
    else
      console.warn(
        `kernel: port "${effect.port}" ${port ? 'refused the input' : 'is offered by no module'} of ${wire.wire_id}`,
      );
  }

  /** The alarm: time-driven Wires from the kind's `tick` (the outbox delivers the effects). */
  async alarm(now: number): Promise<void> {
    const kind = this.#kind;
    if (kind?.decider.tick && this.#streamId) {
      for (const draft of kind.decider.tick(this.#state, now, this.#streamId, this.#cfg)) {
        if (!this.deps.log.findByWireId(draft.wire_id)) this.deps.appendLocal(draft);
      }
    }
    this.#fresh = [];
  }

  /** Earliest time the kind's `tick` has work. */
  wakeAt(): number | null {
    return this.#kind?.decider.wakeAt?.(this.#state) ?? null;
  }

  /** The kind's decision state, through its `view` hook when it has one. */
  view(now: number): { kind: string | null; state: unknown; outbox: number } {
    const kind = this.#kind;
    const state = kind?.hooks?.view ? kind.hooks.view(this.#state, now, this.#cfg) : this.#state;
    return { kind: kind?.name ?? null, state, outbox: this.#outbox.size('stream') };
  }

  #onRefused(row: Effect, failure: Failure): void {
    const hook = this.#kind?.hooks?.refused;
    if (row.tag !== undefined && hook && this.#streamId) {
      const answer = hook(row, failure, this.#state, this.#streamId, Date.now());
      if (answer) this.deps.appendLocal(answer);
      return;
    }
    // A refusal for the target's state (already done, superseded) is expected.
    if (failure.code !== 'invalid-transition')
      console.warn('effect refused', row.target, row.draft.type, failure.code, failure.detail);
  }
}
