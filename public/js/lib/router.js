// Hash routes: `#/<view>/<path…>?<params>`, e.g. `#/coordination?project=kv`
// (issue 33's task detail can be `#/coordination/task/co-104`). The fragment
// never reaches the server, so the Worker serves one page for every view.

import { takeTokenFromFragment } from './auth.js';
import { useEffect, useState } from './ui.js';

/** @typedef {{ view: string, path: string[], params: URLSearchParams }} Route */

/** @param {string} fragment without '#' @returns {Route} */
export function parseRoute(fragment) {
  const at = fragment.indexOf('?');
  const where = at < 0 ? fragment : fragment.slice(0, at);
  const query = at < 0 ? '' : fragment.slice(at + 1);
  const [view = '', ...path] = where.replace(/^\/+/, '').split('/').map(decode);
  return { view, path, params: new URLSearchParams(query) };
}

/** A hand-typed address may hold a stray '%': keep the segment as typed. */
function decode(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** @param {string} view @param {Record<string, string> | URLSearchParams} [params] @param {string[]} [path] */
export function hrefOf(view, params = {}, path = []) {
  const query = new URLSearchParams(params).toString();
  const where = [view, ...path].map(encodeURIComponent).join('/');
  return `#/${where}${query ? `?${query}` : ''}`;
}

/** Goes to a route; `replace` keeps the browser's history to one entry (a view's own state). */
export function navigate(href, { replace = false } = {}) {
  if (replace) {
    history.replaceState(null, '', `${location.pathname}${href}`);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else location.hash = href;
}

/** The fragment of the route last shown ('' before the first). */
let shown = '';

/**
 * The current route. A token in the fragment is taken out first (kept for the
 * tab, out of the address bar and history; the views re-read with it). An old-style `/?project=kv`
 * address is moved into the fragment, so every view's state lives in one place.
 * @returns {Route}
 */
function currentRoute() {
  const pasted = location.hash.length > 1;
  let fragment = takeTokenFromFragment();
  // A bare `#token=…` pasted into an open tab keeps the view it was showing.
  if (!fragment && pasted) fragment = shown;
  if (!fragment && location.search) fragment = `/?${location.search.slice(1)}`;
  const canonical = fragment ? `#${fragment}` : '';
  if (location.search || location.hash !== canonical)
    history.replaceState(null, '', `${location.pathname}${canonical}`);
  shown = fragment;
  return parseRoute(fragment);
}

/** The route, re-rendering on every change of the fragment. */
export function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
