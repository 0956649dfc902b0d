/**
 * Mechanism 6, the token ledger: per-role totals of logged lines, v1
 * baselines, and the measured delta line, computed, never hard-coded.
 */

export interface RoleTotals {
  tokens: number;
  lines: number;
}

/** `orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)` */
export function deltaLine(role: string, baseline: number, measured: number): string {
  const pct = baseline === 0 ? 0 : Math.round(((measured - baseline) / baseline) * 100);
  const sign = pct > 0 ? '+' : pct < 0 ? '-' : '';
  return `${role}: ${baseline} -> ${measured} tokens (v1 baseline -> measured; ${sign}${Math.abs(pct)}%)`;
}

export function deltaPercent(baseline: number, measured: number): number {
  return baseline === 0 ? 0 : Math.round(((measured - baseline) / baseline) * 100);
}
