import type { StreamObject } from './stream/stream-object';

/** Bindings and vars of the Worker (see wrangler.toml). */
export interface Env {
  STREAMS: DurableObjectNamespace<StreamObject>;
  DB: D1Database;
  /** Largest accepted envelope in bytes (default 8192). */
  WIRE_MAX_BYTES?: string;
  /** Wires in flight per WebSocket subscriber before it must ack. */
  WS_MAX_BUFFERED_FRAMES?: string;
}

export function intVar(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
