import type * as z from 'zod';
import type { Wire } from '../../../protocol';
import { memberOf } from '../envelope';
import { PAYLOADS, type RuntimeMessageType } from '../payloads';

/** A stored payload as its schema reads it (defaults applied), or null if it does not fit. */
export function read<K extends RuntimeMessageType>(
  type: K,
  payload: unknown,
): z.output<(typeof PAYLOADS)[K]> | null {
  const parsed = PAYLOADS[type].safeParse(payload);
  return parsed.success ? (parsed.data as z.output<(typeof PAYLOADS)[K]>) : null;
}

const LIFECYCLE = new Set([
  'worker.spawned',
  'worker.progress',
  'worker.completed',
  'worker.failed',
]);

/**
 * What a worker lifecycle Wire (`worker.spawned|progress|completed|failed`)
 * says, as the channel and the branch that spawned the worker record it: the
 * worker it names and the status it gives it. Null for any other Wire, or
 * one naming no worker.
 */
export function workerUpdate(
  type: string,
  payload: Wire['payload'],
): { workerId: string; status: string } | null {
  const workerId = LIFECYCLE.has(type) ? memberOf(payload, 'workerId') : undefined;
  if (!workerId) return null;
  if (type === 'worker.spawned') return { workerId, status: 'spawned' };
  if (type === 'worker.progress') return { workerId, status: String(payload.status ?? 'running') };
  return { workerId, status: type.slice('worker.'.length) };
}
