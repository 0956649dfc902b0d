import type { Env } from '../env';
import { type HeldWires, wireKey } from '../projection/own-wires';
import { topicStub } from './stub';
import { directoryStub } from './topic-directory';

/**
 * A rebuild's question to the topics (`projection/own-wires.ts`): which of
 * the Wires read from an HCS topic the coordinator took, asked of every topic
 * name anchoring there (several share one id on a public network). A topic
 * id no name anchors on (only configured, or only seen in old anchors) has
 * nobody to ask: its Wires are taken as read.
 */
export async function heldWires(env: Pick<Env, 'TOPICS' | 'TOPIC_DIRECTORY'>): Promise<HeldWires> {
  const names = new Map<string, string[]>();
  for (const t of await directoryStub(env).topics()) {
    names.set(t.hcs_topic_id, [...(names.get(t.hcs_topic_id) ?? []), t.name]);
  }
  return async (topicId, wires) => {
    const of = names.get(topicId);
    if (of === undefined) return null;
    const keys = [...new Map(wires.map((w) => [wireKey(w), w])).values()].map((w) => ({
      stream_id: w.stream_id,
      wire_id: w.wire_id,
    }));
    const answers = await Promise.all(of.map((name) => topicStub(env, name).held(keys)));
    const held = new Map<string, number | null>();
    for (const h of answers.flat()) held.set(wireKey(h), h.hcs_sequence_number);
    return held;
  };
}
