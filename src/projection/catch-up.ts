import { foldedSeqOf } from './model-sql';
import { reducers } from './models';
import { projectWires } from './project-wires';
import { wiresOfRows } from './wire-events';

/**
 * Projects every stored Wire that some read model has not folded yet: the
 * tail not on HCS yet, Wires that arrived during the rebuild, or those after
 * a gap in a topic.
 */
export async function catchUp(db: D1Database): Promise<number> {
  const behind = await db
    .prepare(
      `SELECT w.* FROM wire_events w WHERE w.stream_seq > MIN(${reducers()
        .map((r) => foldedSeqOf(r, 'w.stream_id'))
        .join(', ')}, 9e18)
       ORDER BY w.stream_id, w.stream_seq`,
    )
    .all();
  const wires = wiresOfRows(behind.results);
  if (wires.length > 0) await projectWires(db, wires);
  return wires.length;
}
