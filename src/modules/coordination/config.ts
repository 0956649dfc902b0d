import { type Env, intVar } from '../../env';
import { accept, type Decider, type Effect } from '../../kernel/kind';
import { type Failure, fail, type Wire } from '../../protocol';

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

/**
 * Wires whose `ts` feeds a decision (leases, an agent's liveness) must carry
 * a `ts` close to the server clock: `what` names them in the refusal.
 */
export function checkTs(
  wire: Wire,
  now: number,
  cfg: CoordinationConfig,
  what = 'lease-bearing Wires',
): Failure | null {
  const skew = Math.abs(Date.parse(wire.ts) - now);
  if (skew <= cfg.clockSkewMs) return null;
  return fail(
    'invalid-wire',
    `ts ${wire.ts} is ${Math.round(skew / 1000)} s from the server clock; ${what} must be within ${cfg.clockSkewMs / 1000} s`,
    { errors: [{ path: 'ts', message: 'too far from the server clock' }] },
  );
}

/** The wrangler vars the coordination rules read. */
export type CoordinationVars = Partial<
  Pick<Env, 'LEASE_MAX_SECONDS' | 'AGENT_STALE_SECONDS' | 'RESERVATION_TIMEOUT_SECONDS'>
>;

export function configOf(env: CoordinationVars): CoordinationConfig {
  return {
    leaseMaxMs: intVar(env.LEASE_MAX_SECONDS, 3600) * 1000,
    agentStaleMs: intVar(env.AGENT_STALE_SECONDS, 120) * 1000,
    reservationTimeoutMs: intVar(env.RESERVATION_TIMEOUT_SECONDS, 30) * 1000,
    clockSkewMs: 300_000,
  };
}

/**
 * Seed 000's deciders accept every command as sent or refuse it: each is
 * written as a `check` (a Failure, or null to accept) and becomes a kernel
 * decider here, whose `decide` answers `accept(command)` when the check passes.
 */
export interface CheckingDecider<S>
  extends Required<Omit<Decider<S, CoordinationConfig>, 'decide' | 'react'>> {
  /** Seed 000 sends Wires to other streams only (no webhooks). */
  react(before: S, after: S, wire: Wire): Effect[];
  check(wire: Wire, state: S, now: number, cfg: CoordinationConfig): Failure | null;
}

export function checking<S>(
  rules: CheckingDecider<S>,
): CheckingDecider<S> & Decider<S, CoordinationConfig> {
  return {
    ...rules,
    decide: (command, state, ctx) =>
      rules.check(command, state, ctx.now, ctx.cfg) ?? accept(command),
  };
}
