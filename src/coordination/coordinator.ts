import type { Env } from '../env';
import { intVar } from '../env';
import { type Draft, type Failure, fail, newWireId, streamIdProblem, type Wire } from '../protocol';
import type { Sql } from '../stream/sql';
import { streamStub } from '../stream/stub';
import type { WireLog } from '../stream/wire-log';
import { type AgentState, agentView } from './agent-decider';
import { deciderOf, type Kind } from './kinds';
import { Outbox, type OutboxRow } from './outbox';
import {
  isClaim,
  type LeaseFields,
  leaseReceipt,
  revokeDraft,
  type TaskState,
} from './task-decider';
import { type CoordinationConfig, type Decider, type Effect, int, iso, str } from './types';

/** Bump when an `evolve` changes meaning: stored states are then rebuilt from the log. */
const REDUCER_VERSION = 2;

export function configOf(env: Env): CoordinationConfig {
  return {
    leaseMaxMs: intVar(env.LEASE_MAX_SECONDS, 3600) * 1000,
    agentStaleMs: intVar(env.AGENT_STALE_SECONDS, 120) * 1000,
    reservationTimeoutMs: intVar(env.RESERVATION_TIMEOUT_SECONDS, 30) * 1000,
    clockSkewMs: 300_000,
  };
}

/** A capacity reservation made on the claimer's agent stream before the claim is decided. */
export interface Hold {
  ok: true;
  reservationId: string;
  agentStream: string;
  units: number;
}

/**
 * The coordination side of one StreamObject: runs the stream kind's decider
 * inside the shell's synchronous append, keeps the evolved state in a SQLite
 * row (rebuilt from the log when missing or stale), records effects on other
 * streams in the outbox in the same stretch, and delivers them inline or from
 * the alarm. The only awaits are the capacity reservation before a claim
 * (`prepare`, after which the shell re-decides) and effect delivery after the
 * append (`settle`).
 */
export class Coordinator {
  readonly #outbox: Outbox;
  readonly #cfg: CoordinationConfig;
  #streamId: string | null = null;
  #kind: Kind | null = null;
  #decider: Decider<unknown> | null = null;
  #state: unknown = null;
  #fresh: OutboxRow[] = [];

  constructor(
    private readonly sql: Sql,
    private readonly log: WireLog,
    private readonly env: Env,
    /** Appends a coordinator-written Wire through the shell (trusted, no decide). */
    private readonly appendLocal: (draft: Draft) => void,
  ) {
    sql`CREATE TABLE IF NOT EXISTS coord_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      version INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      state TEXT NOT NULL
    )`;
    this.#outbox = new Outbox(sql);
    this.#cfg = configOf(env);
    const known = sql<{ value: string }>`SELECT value FROM meta WHERE key = 'stream_id'`[0];
    if (known) this.#bind(known.value);
  }

  #bind(streamId: string): void {
    if (this.#streamId === streamId) return;
    this.#streamId = streamId;
    const found = deciderOf(streamId);
    this.#kind = found?.kind ?? null;
    this.#decider = found?.decider ?? null;
    if (!this.#decider) return;
    const row = this.sql<{ version: number; seq: number; state: string }>`SELECT version, seq, state
      FROM coord_state WHERE id = 1`[0];
    if (row && row.version === REDUCER_VERSION && row.seq === this.log.lastSeq) {
      this.#state = JSON.parse(row.state);
      return;
    }
    let state = this.#decider.initialState();
    for (let after = 0; ; ) {
      const page = this.log.readAfter(after, 500);
      const last = page.at(-1);
      if (!last) break;
      for (const { received_at: _at, ...wire } of page)
        state = this.#decider.evolve(state, wire, this.#cfg);
      after = last.stream_seq;
    }
    this.#state = state;
    this.#save();
  }

  #save(): void {
    this.sql`INSERT OR REPLACE INTO coord_state (id, version, seq, state)
      VALUES (1, ${REDUCER_VERSION}, ${this.log.lastSeq}, ${JSON.stringify(this.#state)})`;
  }

  /**
   * Phase one of a claim that reserves capacity: ask the agent's stream for
   * the units (a pending reservation that lapses unless confirmed). Returns
   * null when the draft needs no reservation.
   */
  async prepare(draft: Draft, now: number): Promise<Hold | Failure | null> {
    this.#bind(draft.stream_id);
    const units = int(draft.payload, 'capacity_units_reserved') ?? 0;
    if (this.#kind !== 'task' || !isClaim(draft.type) || units <= 0) return null;
    if (this.log.findByWireId(draft.wire_id)) return null; // a replay: the sync path answers
    const early = this.check(draft, this.log.lastSeq + 1, now, {
      ok: true,
      reservationId: '',
      agentStream: '',
      units,
    });
    if (early) return early;
    const agentStream = `agent:${str(draft.payload, 'agent') ?? ''}`;
    const problem = streamIdProblem(agentStream);
    if (problem !== null)
      return fail('invalid-wire', `payload.agent cannot name an agent stream: ${problem}`);
    const hold: Hold = {
      ok: true,
      reservationId: `${draft.stream_id}/${draft.wire_id}`,
      agentStream,
      units,
    };
    const reserve: Draft = {
      wire: '1.1',
      wire_id: newWireId(now),
      stream_id: agentStream,
      correlation_id: draft.correlation_id,
      causation_id: draft.wire_id,
      type: 'agent.capacity.reserved',
      sender: 'system',
      ts: iso(now),
      payload: {
        reservation_id: hold.reservationId,
        units,
        task_stream_id: draft.stream_id,
        expires_at: iso(now + this.#cfg.reservationTimeoutMs),
      },
    };
    try {
      const result = await streamStub(this.env, agentStream).append(reserve);
      if (result.ok) return hold;
      // A retry of this claim after a failed attempt whose cancel has not landed.
      if (result.code === 'invalid-transition' && result.extra?.reservation_status === 'pending')
        return hold;
      return result;
    } catch (error) {
      console.warn('capacity reservation failed', agentStream, error);
      this.#fresh.push(this.#outbox.add(this.#cancelOf(hold, draft, now), now));
      return fail(
        'coordination-unavailable',
        `the capacity of ${agentStream} could not be reserved; retry the claim`,
      );
    }
  }

  /** Runs the decider for `draft` as the Wire at `seq` (null: accepted). */
  check(
    draft: Draft,
    seq: number,
    now: number,
    hold: Hold | null,
    trusted = false,
  ): Failure | null {
    this.#bind(draft.stream_id);
    if (!this.#decider || trusted) return null;
    const failure = this.#decider.decide(
      { ...draft, stream_seq: seq },
      this.#state,
      now,
      this.#cfg,
    );
    if (failure) return failure;
    const units = int(draft.payload, 'capacity_units_reserved') ?? 0;
    if (this.#kind === 'task' && isClaim(draft.type) && units > 0 && hold?.units !== units) {
      return fail('insufficient-capacity', 'no capacity was reserved for this claim');
    }
    return null;
  }

  /** Evolves the state with a stored Wire and records its effects; returns receipt members. */
  applied(wire: Wire, now: number): LeaseFields | null {
    if (!this.#decider) return null;
    const before = this.#state;
    this.#state = this.#decider.evolve(before, wire, this.#cfg);
    this.#save();
    for (const effect of this.#decider.react(before, this.#state, wire)) {
      this.#fresh.push(this.#outbox.add(effect, now));
    }
    return this.#kind === 'task' ? leaseReceipt(this.#state as TaskState, wire) : null;
  }

  /** Receipt members for a replayed claim whose lease is still live. */
  replayed(wireId: string): LeaseFields | null {
    if (this.#kind !== 'task') return null;
    const state = this.#state as TaskState;
    return state.lease?.claimWireId === wireId
      ? leaseReceipt(state, { type: 'task.claimed', wire_id: wireId })
      : null;
  }

  /** Phase two: cancel an unused reservation, then deliver the effects just recorded. */
  async settle(hold: Hold | Failure | null, committed: boolean, draft: Draft): Promise<void> {
    const now = Date.now();
    if (hold?.ok && !committed)
      this.#fresh.push(this.#outbox.add(this.#cancelOf(hold, draft, now), now));
    if (this.#fresh.length === 0) return;
    const rows = this.#fresh;
    this.#fresh = [];
    await Promise.all(rows.map((row) => this.#deliver(row)));
  }

  /** The alarm: time-driven Wires (lease expiry, lapsed reservations), then overdue effects. */
  async alarm(now: number): Promise<void> {
    if (this.#decider && this.#streamId) {
      for (const draft of this.#decider.tick(this.#state, now, this.#streamId, this.#cfg)) {
        if (!this.log.findByWireId(draft.wire_id)) this.appendLocal(draft);
      }
    }
    const rows = new Map([...this.#fresh, ...this.#outbox.due(now)].map((r) => [r.id, r]));
    this.#fresh = [];
    await Promise.all([...rows.values()].map((row) => this.#deliver(row)));
  }

  /** Earliest time the alarm has work: a lease or reservation lapsing, an effect to retry. */
  wakeAt(): number | null {
    const times = [this.#decider?.wakeAt(this.#state) ?? null, this.#outbox.nextDueAt()].filter(
      (t): t is number => t !== null,
    );
    return times.length > 0 ? Math.min(...times) : null;
  }

  /** Decision state for read models and tests (task lease, agent capacity and health, project graph). */
  view(now: number): { kind: Kind | null; state: unknown; outbox: number } {
    const state =
      this.#kind === 'agent'
        ? agentView(this.#state as AgentState, now, this.#cfg.agentStaleMs)
        : this.#state;
    return { kind: this.#kind, state, outbox: this.#outbox.size };
  }

  #cancelOf(hold: Hold, claim: Draft, now: number): Effect {
    return {
      target: hold.agentStream,
      draft: {
        wire: '1.1',
        wire_id: newWireId(now),
        stream_id: hold.agentStream,
        correlation_id: claim.correlation_id,
        causation_id: claim.wire_id,
        type: 'agent.capacity.returned',
        sender: 'system',
        ts: iso(now),
        payload: {
          reservation_id: hold.reservationId,
          units: hold.units,
          reason: 'claim-refused',
          only_if_pending: true,
        },
      },
    };
  }

  async #deliver(row: OutboxRow): Promise<void> {
    try {
      const result = await streamStub(this.env, row.target).append(row.draft);
      if (!result.ok) {
        if (row.onRefused === 'revoke-lease' && result.extra?.reservation_status !== 'held') {
          this.#revoke(row.draft, result.detail);
        } else if (result.code !== 'invalid-transition') {
          console.warn('effect refused', row.target, row.draft.type, result.code, result.detail);
        }
      }
      this.#outbox.done(row.id);
    } catch (error) {
      console.warn('effect delivery failed; the alarm retries', row.target, row.draft.type, error);
      this.#outbox.retryLater(row, Date.now());
    }
  }

  /** A claim whose reservation lapsed before the confirm arrived loses its lease. */
  #revoke(confirm: Draft, detail: string): void {
    const state = this.#state as TaskState;
    if (!this.#streamId || state.lease?.fencingToken !== str(confirm.payload, 'fencing_token'))
      return;
    const draft = revokeDraft(
      state,
      this.#streamId,
      Date.now(),
      `capacity confirm refused: ${detail}`,
    );
    if (draft) this.appendLocal(draft);
  }
}
