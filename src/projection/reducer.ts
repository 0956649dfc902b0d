import type { Wire } from '../protocol';
import type { BaseRow } from './types';

/** The read models, by table name. */
export type ModelName = 'stream_state' | 'task_run_state' | 'agent_runtime_state';

/**
 * A pure reducer for one read model. Each row belongs to exactly one stream,
 * so a row is a function of that stream's Wires in `stream_seq` order alone:
 * the live projection and a replay from HCS (grouped by stream, sorted by
 * seq) fold the same Wires in the same order and must produce the same row.
 */
export interface Reducer<Row extends BaseRow> {
  model: ModelName;
  /** Bump when `evolve` changes meaning: the rebuild replays this model only. */
  version: number;
  /** Primary key column of the table. */
  key: keyof Row & string;
  /** Every column, in table order. */
  columns: readonly (keyof Row & string)[];
  /** Whether this model keeps a row for `streamId`. */
  owns(streamId: string): boolean;
  /** The row before the stream's first Wire is folded in. */
  initial(first: Wire): Row;
  /** Folds one Wire in. Pure: no IO, no clock; the generic layer sets last_seq. */
  evolve(row: Row, wire: Wire): Row;
}

/**
 * Applies `wire` to `row` idempotently: a Wire at or below the row's
 * `last_seq` changes nothing, so replays and duplicates are harmless.
 */
export function applyWire<Row extends BaseRow>(
  reducer: Reducer<Row>,
  row: Row | null,
  wire: Wire,
): Row {
  if (row !== null && wire.stream_seq <= row.last_seq) return row;
  const evolved = reducer.evolve(row ?? reducer.initial(wire), wire);
  return { ...evolved, reducer_version: reducer.version, last_seq: wire.stream_seq };
}

/** Folds a stream's Wires (sorted by stream_seq) from scratch. */
export function foldStream<Row extends BaseRow>(
  reducer: Reducer<Row>,
  wires: readonly Wire[],
): Row | null {
  let row: Row | null = null;
  for (const wire of wires) row = applyWire(reducer, row, wire);
  return row;
}

/** Timestamps are stored as UTC ISO strings so that they sort as text. */
export function isoOf(ts: string): string {
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? ts : new Date(ms).toISOString();
}

/** For the `default:` branch of an exhaustive switch. */
export function unhandled(type: never): never {
  throw new Error(`reducer has no case for ${String(type)}`);
}

/** A string payload field, or null when absent or not a string. */
export function text(payload: Record<string, unknown>, field: string): string | null {
  const value = payload[field];
  return typeof value === 'string' ? value : null;
}

/** An integer payload field, or null. */
export function int(payload: Record<string, unknown>, field: string): number | null {
  const value = payload[field];
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
