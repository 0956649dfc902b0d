import type { Wire } from '../protocol';
import type { BaseRow } from './types';

/** A read model's table name (the registry lists them: `projection/models.ts`). */
export type ModelName = string;

/**
 * A pure reducer for one read model. Each row belongs to exactly one stream,
 * so a row is a function of that stream's Wires in `stream_seq` order alone:
 * the live projection and a replay from HCS (grouped by stream, sorted by
 * seq) fold the same Wires in the same order and must produce the same row.
 * A model whose rows span streams (`spans`) folds a row per stream the same
 * way, and the generic layer sums what each stream's row adds into the
 * shared rows (see `Spanning`).
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
  /**
   * The Wire types `evolve` is given (emmett's `canHandle`): exact names, or
   * families as `prefix.*` (`task.*`). Other Wires only move the row's
   * `last_seq` on. Absent: every type.
   */
  canHandle?: readonly string[];
  /**
   * Columns that hold JSON values (arrays, objects): the generic layer writes
   * them as JSON text and parses them back before `evolve` sees the row.
   * Absent: the reducer stores text itself (older models do).
   */
  json?: readonly (keyof Row & string)[];
  /** Present: the model's table holds sums across streams (see `Spanning`). */
  spans?: Spanning<Row>;
  /** The row before the stream's first Wire is folded in. */
  initial(first: Wire): Row;
  /**
   * Folds one Wire in. Pure: no IO, no clock; the generic layer sets
   * last_seq. `settings` are the deployment's vars (the same the deciders
   * read), so a model can apply the deciders' own rules.
   */
  evolve(row: Row, wire: Wire, settings: Settings): Row;
}

/**
 * A read model whose rows span streams (a project's task counts, a ledger's
 * totals). The reducer folds one row per stream as any model does (its
 * `key`/`columns` describe that per-stream row), which the generic layer keeps
 * in `read_model_parts` with its `last_seq`; the model's own table holds, per
 * `key`, the sum of what every stream's row adds (`share`). The shared rows
 * are recomputed from the per-stream rows in the transaction that changes
 * them, so a total is exact after any redelivery, replay or rebuild.
 */
export interface Spanning<Row extends BaseRow> {
  /** The key column of the model's table (`project_id`). */
  key: string;
  /** Its other columns, numbers: each the sum over the streams that share the key. */
  sums: readonly string[];
  /** What one stream's row adds, and to which shared row; null: nothing (yet). */
  share(row: Row): { key: string; add: Readonly<Record<string, number>> } | null;
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

/** A type guard for a reducer's own list of handled types (its `evolve` narrows on it). */
export function oneOf<T extends string>(list: readonly T[]): (type: string) => type is T {
  const set: ReadonlySet<string> = new Set(list);
  return (type: string): type is T => set.has(type);
}

const matchers = new WeakMap<readonly string[], (type: string) => boolean>();

/** Whether `reducer.evolve` is given Wires of `type` (its `canHandle`). */
export function handles(reducer: Pick<Reducer<BaseRow>, 'canHandle'>, type: string): boolean {
  const list = reducer.canHandle;
  if (list === undefined) return true;
  let match = matchers.get(list);
  if (match === undefined) {
    const exact = new Set(list.filter((t) => !t.endsWith('.*')));
    const families = list.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
    match = (t) => exact.has(t) || families.some((f) => t.startsWith(f));
    matchers.set(list, match);
  }
  return match(type);
}

/**
 * Applies `wire` to `row` idempotently: a Wire at or below the row's
 * `last_seq` changes nothing, so replays and duplicates are harmless. A Wire
 * the reducer does not handle moves `last_seq` only.
 */
export function applyWire<Row extends BaseRow>(
  reducer: Reducer<Row>,
  row: Row | null,
  wire: Wire,
  settings: Settings = deployment,
): Row {
  if (row !== null && wire.stream_seq <= row.last_seq) return row;
  const before = row ?? reducer.initial(wire);
  const evolved = handles(reducer, wire.type) ? reducer.evolve(before, wire, settings) : before;
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
