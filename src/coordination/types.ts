import type { Draft, Failure, Wire } from '../protocol';

/** Deployment settings the deciders read (from wrangler vars), never the clock. */
export interface CoordinationConfig {
  /** Longest lease a claim or heartbeat can get (LEASE_MAX_SECONDS). */
  leaseMaxMs: number;
  /** An agent silent this long is stale (AGENT_STALE_SECONDS). */
  agentStaleMs: number;
  /** A capacity reservation never confirmed is returned after this long. */
  reservationTimeoutMs: number;
  /** How far a lease-bearing Wire's `ts` may be from the server clock. */
  clockSkewMs: number;
}

/**
 * A Wire this stream asks another stream to append, through the durable
 * outbox. `draft` is fixed when the effect is recorded, so a re-delivery is a
 * byte-identical replay (same wire_id, same content).
 */
export interface Effect {
  target: string;
  draft: Draft;
  /** What to do if the target refuses: a refused capacity confirm revokes the lease. */
  onRefused?: 'revoke-lease';
}

/**
 * A decider in the emmett shape. The command is a Wire someone wants to
 * append (accepted as-is, so `decide` returns a Failure or null) or the
 * passage of time (`tick`, which returns the system Wires to append).
 */
export interface Decider<S> {
  initialState(): S;
  decide(wire: Wire, state: S, now: number, cfg: CoordinationConfig): Failure | null;
  evolve(state: S, wire: Wire, cfg: CoordinationConfig): S;
  /** Effects on other streams caused by `wire` (given the states around it). */
  react(before: S, after: S, wire: Wire): Effect[];
  tick(state: S, now: number, streamId: string, cfg: CoordinationConfig): Draft[];
  /** Earliest time `tick` has something to do. */
  wakeAt(state: S): number | null;
}

export function str(payload: Wire['payload'], key: string): string | undefined {
  const value = payload[key];
  return typeof value === 'string' ? value : undefined;
}

export function int(payload: Wire['payload'], key: string): number | undefined {
  const value = payload[key];
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
