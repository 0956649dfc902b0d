import type { Dialect } from './dialect';
import { wire10 } from './wire10';
import { wire11 } from './wire11';

/**
 * The dialect of a body posted to `/v1/streams/{stream_id}/wires`: Wire 1.0
 * when its `wire` says so, Wire 1.1 otherwise (which also answers every body
 * that is not a Wire, with the message `WireInput` gives).
 */
export function nativeDialectOf(body: unknown): Dialect {
  return typeof body === 'object' && body !== null && (body as { wire?: unknown }).wire === '1.0'
    ? wire10
    : wire11;
}
