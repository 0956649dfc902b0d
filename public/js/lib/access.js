// Whether the tab's token gets in, and as whom: checked once per token (one
// read, GET /v1/streams?limit=1, which needs the `read` scope every view
// needs), so the shell can say "a token is needed", "this token was not
// accepted: <why>" (the 401's detail: bad signature, expired…) or "this token
// cannot read" (403) in one place, and "Signed in as …" once it works. Who it
// is comes from the token's own claims (a JWT's payload, read, not verified:
// the server's answer is what says it is good).
import { client, refused, server, serverAnswers } from './api.js';
import { token } from './auth.js';
import { createStore } from './store.js';

/**
 * @typedef {{ sub: string, roles: string[], scopes: string[], exp: number | null }} Who
 * @typedef {{ state: 'none' | 'checking' | 'ok' | 'rejected' | 'forbidden' | 'unverified',
 *   detail?: string, who: Who | null }} Access
 */

/** @type {ReturnType<typeof createStore<Access>>} */
export const access = createStore(/** @type {Access} */ ({ state: 'checking', who: null }));

/** The claims of a Wirestream token (null for one that is not a JWT, like the admin secret). */
export function claimsOf(value) {
  try {
    const part = value.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const c = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (ch) => ch.charCodeAt(0))));
    if (typeof c?.sub !== 'string') return null;
    const list = (v) => (Array.isArray(v) ? v.map(String) : []);
    return { sub: c.sub, roles: list(c.roles), scopes: list(c.scopes), exp: Number(c.exp) || null };
  } catch {
    return null;
  }
}

/** "Signed in as human:operator (roles developer · scopes append, read, claim)". @param {Who | null} who */
export function signedInAs(who) {
  // The one token that is not a JWT and still gets in is the deployment's ADMIN_TOKEN.
  if (!who) return 'Signed in with the admin token';
  const roles = who.roles.length ? `roles ${who.roles.join(', ')} · ` : '';
  return `Signed in as ${who.sub} (${roles}scopes ${who.scopes.join(', ') || 'none'})`;
}

/** Asks the server about the token; a new token hides the views until it answers, a re-check does not. */
async function check({ again = false } = {}) {
  const asked = token.get();
  const who = asked ? claimsOf(asked) : null;
  if (!asked) return access.set({ state: 'none', who: null });
  if (!again) access.set({ state: 'checking', who });
  let next;
  try {
    await client.http.request('GET', '/v1/streams?limit=1', { retry: false });
    next = { state: 'ok', who };
  } catch (error) {
    const status = error?.status ?? 0;
    if (status === 401) next = { state: 'rejected', detail: error.detail, who };
    else if (status === 403) next = { state: 'forbidden', detail: error.detail, who };
    // Any other answer (404 where the read model is absent, 5xx) got past authentication.
    else if (status !== 0 && (status < 502 || status > 504)) next = { state: 'ok', who };
    else next = { state: 'unverified', detail: error?.detail ?? String(error), who };
  }
  serverAnswers(next.state !== 'unverified');
  if (token.get() === asked) access.set(next);
}

void check();
token.subscribe(() => void check());
// A read refused while the tab is open (the token expired): say so in the panel.
refused.subscribe(() => {
  if (access.get().state === 'ok') void check({ again: true });
});
// A token not yet checked (the server was away) is checked once it is back.
server.subscribe(({ downSince }) => {
  if (downSince === null && access.get().state === 'unverified') void check({ again: true });
});
