import type { Env } from '../env';
import type { ListenResult } from './listener';
import { topicStub } from './stub';
import { directoryStub } from './topic-directory';

/**
 * The Cron Trigger's work: one listener pass per HCS topic. Several topic
 * names can share one HCS topic id (a public network with only a `default`
 * topic configured); the first name registered listens for all of them.
 */
export async function listenAll(env: Env): Promise<Record<string, ListenResult | string>> {
  const topics = await directoryStub(env).topics();
  const listeners = new Map<string, string>();
  for (const t of topics) if (!listeners.has(t.hcs_topic_id)) listeners.set(t.hcs_topic_id, t.name);
  const results: Record<string, ListenResult | string> = {};
  await Promise.all(
    [...listeners].map(async ([topicId, name]) => {
      try {
        results[topicId] = await topicStub(env, name).listen();
      } catch (error) {
        console.warn(`listener: topic ${topicId} (${name}) failed`, error);
        results[topicId] = error instanceof Error ? error.message : String(error);
      }
    }),
  );
  return results;
}
