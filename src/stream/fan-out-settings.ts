import { type Env, intVar } from '../env';

/**
 * The least time between two flushes of a stream with `subscribers` sockets:
 * none below 25 (a frame costs little), then 1 ms per 25 up to `maxMs`
 * (`WS_FLUSH_GAP_MS`, default 8; 0 turns spacing off). Each flush is a send
 * per socket: at 100 subscribers, 4 ms apart cut workerd's CPU per append
 * by 12–20 % at 300–600 Wires/s, for ~2 ms more delivery p50 at 300/s and
 * none at 600/s (bench/limits.md).
 */
export function flushGapMs(subscribers: number, maxMs: number): number {
  return Math.min(maxMs, Math.floor(subscribers / 25));
}

export interface FanOutSettings {
  /** Unacknowledged Wires in flight per socket (`WS_MAX_BUFFERED_FRAMES`, default 1024). */
  window: number;
  /** The most ms between two flushes (`WS_FLUSH_GAP_MS`, default 8; 0: off). */
  maxGapMs: number;
}

export function fanOutSettings(
  env: Pick<Env, 'WS_MAX_BUFFERED_FRAMES' | 'WS_FLUSH_GAP_MS'>,
): FanOutSettings {
  return {
    window: intVar(env.WS_MAX_BUFFERED_FRAMES, 1024),
    maxGapMs: intVar(env.WS_FLUSH_GAP_MS, 8, 0),
  };
}
