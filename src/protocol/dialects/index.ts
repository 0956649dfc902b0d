import type { Dialect } from './dialect';
import { gsdEvents } from './examples/gsd-events';
import { runtimeEnvelopeV1 } from './examples/runtime-envelope-v1';
import { wire10 } from './wire10';
import { wire11 } from './wire11';

export * from './dialect';
export * from './examples/gsd-events';
export * from './examples/runtime-envelope-v1';
export * from './foreign';
export * from './native';
export * from './parse-append';
export * from './wire10';
export * from './wire11';

/**
 * Every dialect defined here, by name. The native two serve
 * `POST /v1/streams/{stream_id}/wires`; Runtime v1's Envelope v1 serves the
 * runtime module's endpoints (src/modules/runtime/); GSD's colon events wait
 * for seed 004's module.
 */
export const DIALECTS: readonly Dialect[] = [wire11, wire10, gsdEvents, runtimeEnvelopeV1];

export function dialectNamed(
  name: string,
  dialects: readonly Dialect[] = DIALECTS,
): Dialect | null {
  return dialects.find((d) => d.name === name) ?? null;
}
