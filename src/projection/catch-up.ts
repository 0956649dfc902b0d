import { lastSeqOf } from './model-sql';
import { reducers } from './models';
import { projectWires } from './project-wires';
import type { Reducer } from './reducer';
import type { BaseRow } from './types';
import { wiresOfRows } from './wire-events';

/**
 * How far `reducer` got on the stream of `w` (SQL); 9e18 for streams it keeps
 * no row for. Table names and kinds come from code, never from input.
 */
function behindOf(reducer: Reducer<BaseRow>): string {
  const seq = `COALESCE(${lastSeqOf(reducer, 'w.stream_id')}, 0)`;
  if (reducer.kinds === undefined) return seq;
  const mine = reducer.kinds.map((k) => `w.stream_id LIKE '${k}:%'`).join(' OR ');
  return `CASE WHEN ${mine} THEN ${seq} ELSE 9e18 END`;
}

/**
 * Projects every stored Wire that some read model has not folded yet: the
 * tail not on HCS yet, Wires that arrived during the rebuild, or those after
 * a gap in a topic.
 */
export async function catchUp(db: D1Database): Promise<number> {
  const behind = await db
    .prepare(
      `SELECT w.* FROM wire_events w WHERE w.stream_seq > MIN(${reducers().map(behindOf).join(', ')}, 9e18)
       ORDER BY w.stream_id, w.stream_seq`,
    )
    .all();
  const wires = wiresOfRows(behind.results);
  if (wires.length > 0) await projectWires(db, wires);
  return wires.length;
}
