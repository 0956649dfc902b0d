import type { StoredWire } from '../protocol';

/**
 * A Wire as the projection receives it: the stored Wire and, once known, its
 * HCS anchor flattened into the `wire_events` columns.
 */
export interface ProjectedWire extends StoredWire {
  hcs_topic_id?: string | null;
  hcs_sequence_number?: number | null;
  consensus_timestamp?: string | null;
  /** Read from HCS with a private payload still sealed (src/private/): `openSealed` opens it. */
  sealed?: Record<string, unknown>;
}

/** Where a Wire landed on HCS, reported by the anchoring loop. */
export interface AnchorUpdate {
  wire_id: string;
  stream_id: string;
  hcs_topic_id: string;
  hcs_sequence_number: number;
  consensus_timestamp: string;
}

/** A D1 column value. */
export type Cell = string | number | null;

/**
 * A read-model row's value: a cell, or a boolean, array or object that the
 * generic layer stores as 0/1 or JSON text (`Reducer.json` names the JSON
 * columns it parses back before `evolve` sees the row).
 */
export type RowValue = Cell | boolean | readonly unknown[] | { readonly [key: string]: unknown };

/** Columns every read-model row has: the stream that owns it and how far it got. */
export interface BaseRow {
  stream_id: string;
  reducer_version: number;
  last_seq: number;
  [column: string]: RowValue;
}
