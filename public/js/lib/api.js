// The one SDK client every view uses (public/client.js, bundled from
// src/client), and reads that turn the API's failures into words for a panel.
import { WirestreamClient } from '/client.js';
import { token } from './auth.js';

export const client = new WirestreamClient({
  baseUrl: location.origin,
  token: () => token.get() || undefined,
  pingMs: 15_000,
  reconnect: { baseMs: 200, maxMs: 3000 },
});

/** How long one read may take before it is given up until the next poll. */
const LOAD_TIMEOUT_MS = 10_000;

/**
 * @typedef {{ ok: true, body: any, stale: string | null }
 *   | { ok: false, reason: string, missing: boolean }} Loaded
 */

/**
 * GET a read-model path. Never throws: a failure comes back as a reason a
 * panel can show in place of its content. `missing` marks an endpoint this
 * deployment does not have (404), which callers ask again only rarely.
 * @param {string} path @returns {Promise<Loaded>}
 */
export async function load(path) {
  try {
    const res = await client.http.request('GET', path, {
      signal: AbortSignal.timeout(LOAD_TIMEOUT_MS),
    });
    return { ok: true, body: res.body, stale: res.headers.get('Wirestream-Stale-Models') };
  } catch (error) {
    if (error?.status === 404 && error.code === 'not-found')
      return { ok: false, reason: 'not available', missing: true };
    if (error?.status === 401 || error?.status === 403)
      return { ok: false, reason: 'needs a token with read scope', missing: false };
    if (error?.name === 'TimeoutError')
      return { ok: false, reason: 'unavailable (no answer in 10 s)', missing: false };
    return { ok: false, reason: `unavailable (${error?.message ?? error})`, missing: false };
  }
}
