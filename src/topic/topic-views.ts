import type { AnchoringView, LogAnchoring } from './log-anchoring';
import type { AnchoredRow, TopicStatus } from './stub';
import { publicRow, type TopicLog } from './topic-log';
import type { TopicProjection } from './topic-projection';

/** A page of the topic's anchored Wires as the API shows them; a log-mode Wire names its leaf. */
export function anchoredPage(
  log: TopicLog,
  logAnchoring: LogAnchoring,
  afterSeq: number,
  limit: number,
): { hcs_topic_id: string | null; wires: AnchoredRow[] } {
  const rows = log.anchoredAfter(afterSeq, limit);
  const leaves = logAnchoring.leavesAt(rows.map((r) => r.pos));
  return {
    hcs_topic_id: log.get('hcs_topic_id'),
    wires: rows.map((row) => {
      const leaf = leaves.get(row.pos);
      return leaf === undefined ? publicRow(row) : { ...publicRow(row), log: { leaf_index: leaf } };
    }),
  };
}

/** The topic's status: its log's counts, what D1 holds, the last errors. */
export function topicStatus(
  log: TopicLog,
  projection: TopicProjection,
  lastError: string | null,
): TopicStatus {
  const counts = log.counts();
  return {
    name: log.get('name'),
    hcs_topic_id: log.get('hcs_topic_id'),
    ...counts,
    projected: counts.total - projection.unprojected(),
    last_error: lastError,
    projection_error: projection.lastError,
    listened_to_seq: Number(log.get('listen_seq') ?? '0'),
  };
}

/** The topic's anchoring settings, their sources and the archive's progress. */
export async function anchoringView(
  log: TopicLog,
  logAnchoring: LogAnchoring,
): Promise<AnchoringView & { name: string | null; hcs_topic_id: string | null }> {
  const name = log.get('name');
  return {
    name,
    hcs_topic_id: log.get('hcs_topic_id'),
    ...(await logAnchoring.view()),
  };
}
