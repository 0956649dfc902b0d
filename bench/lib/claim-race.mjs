// One claim race, as the claims scenario and tools/claim-latency.mjs run it.
import { post } from './load.mjs';
import { now } from './stats.mjs';

/**
 * Offers a task on its stream at `path` (the offer must be taken), then sends
 * every agent's claim at the same instant, each built by `claimOf(agent,
 * lease)` with a lease ten minutes ahead and sent with `agent.headers`.
 * Resolves with the answers in the agents' order and `t0`, when they left.
 */
export async function claimRace(http, origin, path, offer, agents, claimOf) {
  const offered = await post(http, origin, path, offer.body, offer.headers);
  if (offered.status !== 201) throw new Error(`offer: ${offered.status} ${offered.text}`);
  const lease = new Date(Date.now() + 600_000).toISOString();
  const t0 = now();
  const answers = await Promise.all(
    agents.map((a) => post(http, origin, path, claimOf(a, lease), a.headers)),
  );
  return { t0, answers };
}
