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
 * Every dialect defined here, by name. Only the native two are on a route
 * today (`POST /v1/streams/{stream_id}/wires`); the examples wait for the
 * modules of seeds 003 and 004 to adopt them.
 */
export const DIALECTS: readonly Dialect[] = [wire11, wire10, gsdEvents, runtimeEnvelopeV1];

export function dialectNamed(
  name: string,
  dialects: readonly Dialect[] = DIALECTS,
): Dialect | null {
  return dialects.find((d) => d.name === name) ?? null;
}
