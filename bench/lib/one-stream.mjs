// What the anchoring, projection and fan-out runs share: Wirestream started
// for a scenario, and one stream of a system appended to and followed.
import { benchHeaders } from './auth.mjs';
import { start } from './runtime.mjs';
import { subscribe } from './subscribers.mjs';
import { oneStream, SYSTEMS } from './targets.mjs';

/**
 * Wirestream from `builds` on `o.bindings`, with the bench's auth headers;
 * null when the tree has no Hedera stand-in (`o.standin`), since what the
 * caller measures lands there.
 */
export async function startWithStandin(o, builds) {
  if (!o.standin) return null;
  const rt = await start(builds.wirestream, {
    bindings: o.bindings,
    fresh: o.fresh,
    split: o.split,
  });
  return { system: SYSTEMS.wirestream, rt, headers: await benchHeaders() };
}

/**
 * `stream` of `system` as the load generator appends to it (`common`, see
 * lib/load.mjs), and subscribers following it over WebSocket (`subs`, see
 * lib/subscribers.mjs; `options` adds count, ack and the like).
 */
export async function followedStream(system, origin, headers, stream, options) {
  const common = oneStream(system, origin, headers, stream);
  const subs = await subscribe({ origin, wsPath: system.wsPath(stream), headers, ...options });
  return { common, subs };
}
