import { LEVELS, type Level } from '../payloads';

/**
 * The compactor's arithmetic (FR-6), orchestration only: the channel's live
 * context is a list of segments (a message, a conclusion, a digest, or a
 * summary that replaced a range), utilization is their tokens ÷ the
 * channel's budget. Levels: > 80 % soft, > 85 % aggressive, > 95 % emergency.
 */
export interface Segment {
  from: number;
  to: number;
  tokens: number;
}

export const THRESHOLDS: Record<Level, number> = { soft: 0.8, aggressive: 0.85, emergency: 0.95 };

/** 0 (below every threshold) … 3 (emergency). */
export function levelOf(utilization: number): number {
  let level = 0;
  LEVELS.forEach((name, i) => {
    if (utilization > THRESHOLDS[name]) level = i + 1;
  });
  return level;
}

export function liveTokens(segments: readonly Segment[]): number {
  return segments.reduce((sum, s) => sum + s.tokens, 0);
}

/** The segments with those inside `[from, to]` replaced by one summary segment. */
export function applySummary(
  segments: readonly Segment[],
  from: number,
  to: number,
  tokens: number,
): Segment[] {
  const kept = segments.filter((s) => s.to < from || s.from > to);
  return [...kept, { from, to, tokens }].sort((a, b) => a.from - b.from);
}
