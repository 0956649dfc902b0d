// The one SDK client every view uses (public/client.js, bundled from
// src/client), reads that turn the API's failures into words for a panel, and
// whether the server answers at all (`server`), which the shell shows.
import { WirestreamClient } from '/client.js';
import { token } from './auth.js';
import { createStore } from './store.js';

export const client = new WirestreamClient({
  baseUrl: location.origin,
  token: () => token.get() || undefined,
  pingMs: 15_000,
  reconnect: { baseMs: 200, maxMs: 3000 },
  // A read's first failed try already says the server is away (it retries a few times).
  onRetry: ({ error }) => {
    if (isDown(error)) serverAnswers(false);
  },
});

/** No answer from the server: a network error, a timeout, or a gateway's 502–504. */
function isDown(error) {
  const status = error?.status ?? 0;
  return error?.name === 'TimeoutError' || status === 0 || (status >= 502 && status <= 504);
}

/** How long one read may take before it is given up until the next poll. */
const LOAD_TIMEOUT_MS = 10_000;

/**
 * When the server stopped answering (ms since the epoch), null while it answers.
 * Set by a read that found no server (network error, timeout, 502–504), cleared
 * by any answer, and by the live feed when it is back.
 */
export const server = createStore(
  /** @type {{ downSince: number | null }} */ ({ downSince: null }),
);

/** Goes up on each read the server refused (401): a token that expired in an open tab. */
export const refused = createStore(0);

/** @param {boolean} up */
export function serverAnswers(up) {
  const { downSince } = server.get();
  if (up && downSince !== null) server.set({ downSince: null });
  else if (!up && downSince === null) server.set({ downSince: Date.now() });
}

/**
 * @typedef {{ ok: true, body: any, stale: string | null }
 *   | { ok: false, reason: string, missing: boolean, down?: boolean }} Loaded
 * `down`: the server did not answer (the last answer still stands).
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
    serverAnswers(true);
    return { ok: true, body: res.body, stale: res.headers.get('Wirestream-Stale-Models') };
  } catch (error) {
    const status = error?.status ?? 0;
    const down = isDown(error);
    serverAnswers(!down);
    if (status === 404 && error.code === 'not-found')
      return { ok: false, reason: 'not available', missing: true };
    if (status === 401) {
      refused.set(refused.get() + 1);
      return { ok: false, reason: refusal(error), missing: false };
    }
    if (status === 403)
      return { ok: false, reason: `not allowed: ${error.detail}`, missing: false };
    if (error?.name === 'TimeoutError')
      return { ok: false, reason: 'server unreachable (no answer in 10 s)', missing: false, down };
    if (!down)
      return { ok: false, reason: `unavailable (${error?.message ?? error})`, missing: false };
    const why = status === 0 ? error.detail : error.message;
    return { ok: false, reason: `server unreachable (${why})`, missing: false, down };
  }
}

/**
 * Why a view's read failed, in words; or null when the server did not answer
 * and the view already shows something: it keeps showing that, as polled
 * panels do, and the shell says since when the server is away.
 * @param {any} error @param {boolean} showing
 */
export function readFailure(error, showing) {
  const down = isDown(error);
  serverAnswers(!down);
  if (down && showing) return null;
  return whatFailed(error);
}

/**
 * A failed action (a button, a form) in words, shown beside it, never in place
 * of the view; a server that did not answer is also the shell's to say.
 */
export function whatFailed(error) {
  if (isDown(error)) serverAnswers(false);
  if (error?.name === 'TimeoutError') return 'server unreachable (no answer in 10 s)';
  if (isDown(error)) return `server unreachable (${error?.detail ?? error?.message ?? error})`;
  return error?.message ?? String(error);
}

/** A 401 in words: no token, or why this one was refused (the problem's detail). */
function refusal(error) {
  return token.get()
    ? `this token was not accepted: ${error?.detail ?? error}`
    : 'a token is needed: open the dashboard link that npm start prints';
}
