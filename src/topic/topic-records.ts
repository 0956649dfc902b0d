import type { Env } from '../env';
import { type HeldAt, type TopicRecords, wireKey } from '../projection/own-wires';
import type { ProjectedWire } from '../projection/types';
import { topicStub } from './stub';
import { directoryStub } from './topic-directory';

/**
 * A rebuild's questions to the topics (`projection/own-wires.ts`), asked of
 * every topic name anchoring on the HCS topic (several share one id on a
 * public network). A topic id no name anchors on (only configured, or only
 * seen in old anchors) has nobody to ask: its Wires are taken as read.
 */
export async function topicRecords(
  env: Pick<Env, 'TOPICS' | 'TOPIC_DIRECTORY'>,
): Promise<TopicRecords> {
  const names = new Map<string, string[]>();
  for (const t of await directoryStub(env).topics()) {
    names.set(t.hcs_topic_id, [...(names.get(t.hcs_topic_id) ?? []), t.name]);
  }
  const stubs = (topicId: string) => (names.get(topicId) ?? []).map((n) => topicStub(env, n));
  return {
    async held(topicId, wires) {
      if (!names.has(topicId)) return null;
      const keys = [...new Map(wires.map((w) => [wireKey(w), w])).values()].map((w) => ({
        stream_id: w.stream_id,
        wire_id: w.wire_id,
      }));
      const answers = await Promise.all(stubs(topicId).map((topic) => topic.held(keys)));
      const held = new Map<string, HeldAt>();
      for (const h of answers.flat()) {
        held.set(wireKey(h), { seq: h.hcs_sequence_number, txIds: h.tx_ids });
      }
      return held;
    },
    async ingested(topicId, seqs) {
      const answers = await Promise.all(stubs(topicId).map((topic) => topic.ingested([...seqs])));
      return answers.flat().map((row) => ({
        ...(JSON.parse(row.body) as ProjectedWire),
        hcs_topic_id: topicId,
        hcs_sequence_number: row.hcs_sequence_number,
        consensus_timestamp: row.consensus_timestamp,
      }));
    },
  };
}
