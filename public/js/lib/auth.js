// The bearer token every view's reads and feeds use. It arrives in the URL
// fragment (`#token=…`, never sent to the server) — on load or pasted into an
// open tab — or in the header's field, and is kept for this tab only.
import { createStore } from './store.js';

const KEY = 'wirestream.token';

/** The current token ('' when none); views re-read or re-follow when it changes. */
export const token = createStore(sessionStorage.getItem(KEY) ?? '');

/** @param {string} value */
export function setToken(value) {
  const next = value.trim();
  sessionStorage.setItem(KEY, next);
  if (next !== token.get()) token.set(next);
}

/**
 * Takes a `token=` out of the fragment — `#token=…` alone, or among a route's
 * parameters (`#/coordination?project=kv&token=…`) — and returns what is left
 * of the fragment without the '#'.
 * @returns {string}
 */
export function takeTokenFromFragment() {
  const fragment = location.hash.slice(1);
  const routed = fragment.startsWith('/');
  const at = routed ? fragment.indexOf('?') : -1;
  const where = routed ? (at < 0 ? fragment : fragment.slice(0, at)) : '';
  const params = new URLSearchParams(routed ? (at < 0 ? '' : fragment.slice(at + 1)) : fragment);
  if (!params.has('token')) return fragment;
  setToken(params.get('token') ?? '');
  params.delete('token');
  const rest = params.toString();
  return rest ? `${where || '/'}?${rest}` : where;
}
