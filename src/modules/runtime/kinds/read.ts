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
