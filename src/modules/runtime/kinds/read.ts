import type * as z from 'zod';
import { PAYLOADS, type RuntimeMessageType } from '../payloads';

/** A stored payload as its schema reads it (defaults applied), or null if it does not fit. */
export function read<K extends RuntimeMessageType>(
  type: K,
  payload: unknown,
): z.output<(typeof PAYLOADS)[K]> | null {
  const parsed = PAYLOADS[type].safeParse(payload);
  return parsed.success ? (parsed.data as z.output<(typeof PAYLOADS)[K]>) : null;
}

/**
 * The status a worker lifecycle Wire (`worker.spawned|progress|completed|failed`)
 * gives its worker, as the channel and the branch that spawned it record it.
 */
export function workerStatusOf(type: string, payload: Record<string, unknown>): string {
  if (type === 'worker.spawned') return 'spawned';
  if (type === 'worker.progress') return String(payload.status ?? 'running');
  return type.slice('worker.'.length);
}
