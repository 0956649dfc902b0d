import type { Wire } from '../protocol';
import type { BaseRow } from './types';

/** A read model's table name (the registry lists them: `projection/models.ts`). */
export type ModelName = string;

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
  /** The stream kinds (`task` for `task:…`) it keeps a row for; absent: every stream. */
  kinds?: readonly string[];
  /** The row before the stream's first Wire is folded in. */
  initial(first: Wire): Row;
  /**
   * Folds one Wire in. Pure: no IO, no clock; the generic layer sets
   * last_seq. `settings` are the deployment's vars (the same the deciders
   * read), so a model can apply the deciders' own rules.
   */
  evolve(row: Row, wire: Wire, settings: Settings): Row;
}

/** The deployment's vars as read models see them (wrangler `[vars]`, strings). */
export type Settings = Readonly<Record<string, unknown>>;

let deployment: Settings = {};

/**
 * The settings the projection folds with: set once per isolate by the
 * objects that project (TopicObject, Rebuilder) from their `env`, so a live
 * projection and a rebuild apply the same deployment rules as the deciders.
 */
export function useSettings(env: Settings): void {
  deployment = env;
}

/** Whether `reducer` keeps a row for `streamId`. */
export function owns(reducer: Pick<Reducer<BaseRow>, 'kinds'>, streamId: string): boolean {
  if (reducer.kinds === undefined) return true;
  const kind = streamId.slice(0, streamId.indexOf(':'));
  return reducer.kinds.includes(kind);
}

/**
 * Applies `wire` to `row` idempotently: a Wire at or below the row's
 * `last_seq` changes nothing, so replays and duplicates are harmless.
 */
export function applyWire<Row extends BaseRow>(
  reducer: Reducer<Row>,
  row: Row | null,
  wire: Wire,
  settings: Settings = deployment,
): Row {
  if (row !== null && wire.stream_seq <= row.last_seq) return row;
  const evolved = reducer.evolve(row ?? reducer.initial(wire), wire, settings);
  return { ...evolved, reducer_version: reducer.version, last_seq: wire.stream_seq };
}

/** Folds a stream's Wires (sorted by stream_seq) from scratch. */
export function foldStream<Row extends BaseRow>(
  reducer: Reducer<Row>,
  wires: readonly Wire[],
  settings: Settings = deployment,
): Row | null {
  let row: Row | null = null;
  for (const wire of wires) row = applyWire(reducer, row, wire, settings);
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
