import { AnchorError, anchorFor } from '../anchor';
import type { Env } from '../env';
import { directoryStub } from './topic-directory';
import type { TopicLog } from './topic-log';

interface TopicIdDeps {
  env: Env;
  log: TopicLog;
  /** Transaction ids for messages of these sizes (the TopicObject's id block). */
  transactionIds(messageBytes: number[]): Promise<string[][]>;
}

/**
 * A TopicObject's HCS topic id: configured (`HEDERA_TOPICS`), or created on
 * first use (always on `local`), else `default`'s; kept in its log and
 * registered with the TopicDirectory once.
 */
export async function hcsTopicId(deps: TopicIdDeps): Promise<string> {
  const { env, log } = deps;
  const name = log.get('name') ?? 'default';
  let id = log.get('hcs_topic_id');
  if (id === null) {
    const { config } = anchorFor(env);
    id = config.topics[name] ?? null;
    if (id === null && config.autoCreateTopics) id = await createTopic(deps, name);
    id ??= config.topics.default ?? null;
    if (id === null) {
      throw new AnchorError('rejected', `no HCS topic for "${name}": add it to HEDERA_TOPICS`);
    }
    log.set('hcs_topic_id', id);
  }
  if (log.get('registered') === null) {
    await directoryStub(env).registerTopic(name, id);
    log.set('registered', 'true');
  }
  return id;
}

/**
 * Why the topic `name` cannot keep a log (log mode) on its HCS topic, or null
 * when that HCS topic is its own: created for it, or given to it alone in
 * `HEDERA_TOPICS`. A name missing from `HEDERA_TOPICS` on a network where
 * topics are not created anchors on `default`'s, and two names may be given
 * one id. `storedId` is the id the topic already uses, if any.
 */
export function sharedTopicProblem(env: Env, name: string, storedId: string | null): string | null {
  const { config } = anchorFor(env);
  const own = config.topics[name] ?? null;
  const id = storedId ?? own ?? (config.autoCreateTopics ? null : (config.topics.default ?? null));
  if (id === null) return null;
  const others = Object.keys(config.topics).filter((n) => n !== name && config.topics[n] === id);
  if (others.length === 0) return null;
  const them = others.map((n) => `"${n}"`).join(', ');
  return own === id
    ? `HEDERA_TOPICS gives "${name}" the HCS topic ${id}, which ${them} also use; a log needs an HCS topic of its own`
    : `"${name}" is not in HEDERA_TOPICS and anchors on ${id}, the HCS topic of ${them}; a log needs an HCS topic of its own: add "${name}" to HEDERA_TOPICS`;
}

/**
 * Same rule as for Wires: the transaction id is stored before the topic is
 * asked for, and a later pass asks again under the same id (the network's
 * duplicate check absorbs a create it already took). A new id is chosen
 * only once the old one expired without making a topic. Waiting first for
 * the old id's receipt cost ~15 s whenever the create never left (no
 * healthy node at the time).
 */
async function createTopic(deps: TopicIdDeps, name: string): Promise<string> {
  const { anchor } = anchorFor(deps.env);
  const memo = `wirestream ${name}`;
  const earlier = deps.log.get('create_tx');
  if (earlier !== null) {
    try {
      return await anchor.createTopic(memo, earlier);
    } catch (error) {
      if (!(error instanceof AnchorError && error.kind === 'expired')) throw error;
      const made = await anchor.createdTopic(earlier);
      if (made !== null) return made;
    }
  }
  const [[txId = ''] = []] = await deps.transactionIds([0]);
  deps.log.set('create_tx', txId);
  return anchor.createTopic(memo, txId);
}
