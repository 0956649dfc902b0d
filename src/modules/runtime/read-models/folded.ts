import { isoOf } from '../../../projection/reducer';
import type { BaseRow } from '../../../projection/types';
import type { Wire } from '../../../protocol';
import { canonicalJson } from '../../../protocol/canonical-json';

/**
 * Read models folded with a decider's own `evolve` (channels, tasks): the
 * row keeps the decider state as canonical JSON, and its other columns are
 * derived from that state, so the read model cannot disagree with the kind.
 */

/** The columns every folded row ends with. */
export const FOLDED_COLUMNS = [
  'state',
  'created_at',
  'updated_at',
  'reducer_version',
  'last_seq',
] as const;

type Columns = Record<string, string | number | null>;

/** A type, not an interface: rows need its implicit index signature. */
type FoldedTail = {
  state: string;
  created_at: string;
  updated_at: string;
  reducer_version: number;
  last_seq: number;
};

/** The row before the stream's first Wire: its identity, the initial state and what it derives. */
export function foldedRow<I extends Columns, D extends Columns>(
  first: Wire,
  identity: I,
  derived: D,
  state: unknown,
): I & D & FoldedTail {
  const at = isoOf(first.ts);
  return {
    ...identity,
    ...derived,
    state: canonicalJson(state),
    created_at: at,
    updated_at: at,
    reducer_version: 0,
    last_seq: 0,
  };
}

/** The row after `wire`: the new state and what it derives. */
export function foldedNext<Row extends BaseRow>(
  row: Row,
  derived: Columns,
  state: unknown,
  wire: Wire,
): Row {
  return { ...row, ...derived, state: canonicalJson(state), updated_at: isoOf(wire.ts) };
}
