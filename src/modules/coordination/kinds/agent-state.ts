import { iso } from '../config';
import type { KeyRecord } from './agent-keys';

/**
 * What the `agent:<id>` decider holds (./agent-decider.ts), the capacity
 * arithmetic it keeps to, and the view the read models and deciders take of it.
 */

export interface Reservation {
  units: number;
  status: 'pending' | 'held';
  /** Pending reservations lapse at this time; held ones have none. */
  expiresAt: number | null;
  taskStreamId: string;
}

export interface AgentState {
  status: 'unknown' | 'running' | 'stopped';
  role: string | null;
  maxUnits: number | null;
  availableUnits: number | null;
  lastSeenAt: number | null;
  lastHeartbeatAt: string | null;
  activeLeases: string[];
  reservations: Record<string, Reservation>;
  /** Its signing keys, every one it registered (`agent-keys.ts`). */
  keys: KeyRecord[];
}

/** Units reserved, pending or held. */
export function reservedUnits(reservations: Record<string, { units: number }>): number {
  return Object.values(reservations).reduce((sum, r) => sum + r.units, 0);
}

/** What a claim may take: the free units, within max minus what is reserved. */
export function availableWithin(free: number, max: number, reserved: number): number {
  return Math.max(0, Math.min(free, max - reserved));
}

/** The DO-side agent view the read models and deciders need. */
export function agentView(state: AgentState, now: number, staleMs: number) {
  const pending = Object.values(state.reservations).filter((r) => r.status === 'pending');
  const held = Object.values(state.reservations).filter((r) => r.status === 'held');
  return {
    status: state.status,
    stale: state.lastSeenAt === null || now - state.lastSeenAt > staleMs,
    role: state.role,
    available_units: state.availableUnits,
    max_units: state.maxUnits,
    reserved_units: [...pending, ...held].reduce((sum, r) => sum + r.units, 0),
    pending_reservations: pending.length,
    held_reservations: held.length,
    active_leases: state.activeLeases,
    last_seen_at: state.lastSeenAt === null ? null : iso(state.lastSeenAt),
    last_heartbeat_at: state.lastHeartbeatAt,
    keys: state.keys,
  };
}
