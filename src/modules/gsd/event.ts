import {
  type GsdEventsOptions,
  gsdEventsDialect,
  type JsonObject,
  type Wire,
} from '../../protocol';
import { GSD_PREFIX } from './catalogue';

/** Seed 004's colon events as Wires (`src/protocol/dialects/examples/gsd-events.ts`). */
export const gsdDialect = gsdEventsDialect({
  name: 'gsd-events',
  prefix: GSD_PREFIX,
} satisfies GsdEventsOptions);

/** A GSD event as the seed's files hold it. */
export type GsdEvent = JsonObject & { type: string; timestamp: string };

/**
 * A stored Wire as the event the agent sent, plus `id`, the event's number in
 * its project (its `stream_seq`: `++lastEventId`, gap-free). An event that
 * carries its own `id` (the seed's `decision:made` has `id: 'dec-001'`) keeps
 * it: what was sent is what is read back.
 */
export function eventOf(wire: Wire): GsdEvent {
  const event = gsdDialect.encode(wire) as GsdEvent;
  return 'id' in event ? event : { ...event, id: wire.stream_seq };
}

/** The colon type of a GSD Wire. */
export function colonTypeOf(wire: Pick<Wire, 'type' | 'payload'>): string {
  return String((gsdDialect.encode({ ...(wire as Wire) }) as GsdEvent).type);
}

export function str(event: JsonObject, field: string): string | null {
  const value = event[field];
  return typeof value === 'string' ? value : null;
}

export function strings(event: JsonObject, field: string): string[] {
  const value = event[field];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function taskOf(event: JsonObject): string | number {
  const task = event.task;
  return typeof task === 'number' || typeof task === 'string' ? task : '';
}
