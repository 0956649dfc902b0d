import { writeRows } from './model-sql';
import type { reducers } from './models';
import { applyWire, type ModelName, owns } from './reducer';
import type { BaseRow, ProjectedWire } from './types';

/** Read-model rows written per upsert. */
const UPSERT_ROWS = 200;

type Reducer = ReturnType<typeof reducers>[number];

/** The folder between pages: its counts and the stream in hand, as plain JSON. */
export interface FolderState {
  streams: number;
  wires: number;
  stream: string | null;
  /** Each model's row for the stream in hand (null: no Wire folded yet). */
  rows: [ModelName, BaseRow | null][];
}

/**
 * Folds Wires arriving in (stream_id, stream_seq) order, one stream at a
 * time, each model from seq 1 while the Wires are contiguous (a gap waits for
 * the catch-up), and writes the finished rows in batches: memory holds one
 * stream's current rows and a page's finished ones, whatever the history's
 * size. The stream in hand travels in the rebuild's state between pages.
 */
export class StreamFolder {
  streams: number;
  wires: number;
  #stream: string | null;
  #rows = new Map<Reducer, BaseRow | null>();
  #finished = new Map<Reducer, BaseRow[]>();

  constructor(
    private readonly db: D1Database,
    private readonly reducers: readonly Reducer[],
    from: FolderState,
  ) {
    this.streams = from.streams;
    this.wires = from.wires;
    this.#stream = from.stream;
    for (const [model, row] of from.rows) {
      const reducer = reducers.find((r) => r.model === model);
      if (reducer) this.#rows.set(reducer, row);
    }
  }

  add(wire: ProjectedWire): void {
    if (wire.stream_id !== this.#stream) this.#next(wire.stream_id);
    this.wires++;
    for (const [reducer, row] of this.#rows) {
      if (wire.stream_seq !== (row?.last_seq ?? 0) + 1) {
        this.#finish(reducer, row);
        continue;
      }
      this.#rows.set(reducer, applyWire(reducer, row, wire));
    }
  }

  /** Writes the finished rows; with `end`, the stream in hand's too. */
  async flush(end: boolean): Promise<void> {
    if (end) this.#next(null);
    const statements: D1PreparedStatement[] = [];
    for (const [reducer, rows] of this.#finished) {
      for (let j = 0; j < rows.length; j += UPSERT_ROWS) {
        statements.push(
          ...writeRows(this.db, reducer, rows.slice(j, j + UPSERT_ROWS), { replace: true }),
        );
      }
    }
    this.#finished.clear();
    if (statements.length > 0) await this.db.batch(statements);
  }

  state(): FolderState {
    return {
      streams: this.streams,
      wires: this.wires,
      stream: this.#stream,
      rows: [...this.#rows].map(([reducer, row]) => [reducer.model, row]),
    };
  }

  #next(streamId: string | null): void {
    for (const [reducer, row] of this.#rows) this.#finish(reducer, row);
    this.#rows.clear();
    this.#stream = streamId;
    if (streamId === null) return;
    this.streams++;
    for (const reducer of this.reducers) if (owns(reducer, streamId)) this.#rows.set(reducer, null);
  }

  /** The model's row for this stream is final: a gap, or the stream ended. */
  #finish(reducer: Reducer, row: BaseRow | null): void {
    this.#rows.delete(reducer);
    if (!row) return;
    const finished = this.#finished.get(reducer);
    if (finished) finished.push(row);
    else this.#finished.set(reducer, [row]);
  }
}
