import type { StoredWire } from '../../../protocol';
import type { StreamApi } from '../../../stream/stub';
import { eventOf, type GsdEvent } from '../event';
import { retentionMs } from '../kinds/state';
import { stateOf } from './project';

/** Longest long poll of `?wait=` (seconds). */
export const MAX_WAIT_SECONDS = 60;
const PAGE = 1000;

export interface EventFilter {
  types: ReadonlySet<string> | null;
  planPrefix: string | null;
}

export interface FoundEvents {
  events: GsdEvent[];
  lastEventId: number;
  retentionPolicy: string;
  /** Pass as `after` for the rest, when `limit` cut the answer short. */
  nextAfter: number | null;
}

function matches(event: GsdEvent, filter: EventFilter): boolean {
  if (filter.types && !filter.types.has(event.type)) return false;
  if (filter.planPrefix !== null) {
    const plan = event.plan;
    if (typeof plan !== 'string' || !plan.startsWith(filter.planPrefix)) return false;
  }
  return true;
}

/**
 * The events view: the project's log read from its StreamObject (the one
 * order, so read-your-writes holds), after `after`, within the retention
 * window (events received more than `retentionPolicy` before `now` are left
 * out of the view; the stream and HCS keep them), filtered. With `waitMs`, until `count` events match: between
 * reads it waits on the stream itself (`waitPast`, woken by the append),
 * never on a timer.
 */
export async function readEvents(
  stub: StreamApi,
  filter: EventFilter,
  after: number,
  options: { limit: number; waitMs: number; count: number; now?: number },
): Promise<FoundEvents> {
  const state = await stateOf(stub);
  // The retention window is measured from `now` (the clock, unless a caller brings its own).
  const since = (options.now ?? Date.now()) - retentionMs(state.retentionPolicy);
  const deadline = Date.now() + options.waitMs;
  const found: { seq: number; event: GsdEvent }[] = [];
  let cursor = after;
  let head = after;
  for (;;) {
    for (;;) {
      const page = await stub.read(cursor, PAGE);
      head = page.last_seq;
      for (const wire of page.wires as StoredWire[]) {
        cursor = wire.stream_seq;
        if (Date.parse(wire.received_at) < since) continue;
        const event = eventOf(wire);
        if (matches(event, filter)) found.push({ seq: wire.stream_seq, event });
      }
      if (page.wires.length < PAGE || cursor >= head) break;
    }
    const left = deadline - Date.now();
    if (found.length >= options.count || left <= 0) break;
    await stub.waitPast(cursor, left);
  }
  const shown = found.slice(0, options.limit);
  return {
    events: shown.map((f) => f.event),
    lastEventId: head,
    retentionPolicy: state.retentionPolicy,
    nextAfter: found.length > options.limit ? (shown.at(-1)?.seq ?? null) : null,
  };
}
