// Whether what the picker names exists: a stream (or project) with Wires, a
// role whose feed has had an offer. An unknown name would otherwise look like
// a quiet success (a live badge, an empty feed, an all-zero board).

import { load } from '../../lib/api.js';
import { token } from '../../lib/auth.js';
import { absent } from '../../lib/live-feed.js';
import { useCallback, useEffect, useState } from '../../lib/ui.js';

/** @typedef {boolean | null | 'pending'} Existence */

const enc = encodeURIComponent;
const RECHECK_MS = 3_000;

/**
 * `true` once it has Wires, `false` while it has none, `'pending'` until the
 * first answer, `null` when the read failed (then the feed is followed as before).
 * While it has none, the header's badge says "no such …"; the feed is still
 * followed, and `seen()` (called on its first Wire) ends that at once.
 * A missing one is asked again every few seconds, so the page follows it
 * from its first Wire.
 * @param {'project' | 'role' | 'stream'} kind @param {ReturnType<typeof import('../../lib/live-feed.js').feedOf>} feed
 */
export function useExists(kind, feed) {
  const [exists, setExists] = useState(/** @type {Existence} */ ('pending'));
  const key = JSON.stringify(feed);
  useEffect(() => {
    if (exists !== false) return;
    absent.set(kind);
    return () => absent.set(null);
  }, [exists, kind]);
  useEffect(() => {
    let stopped = false;
    let timer = 0;
    const ask = async () => {
      const found = await existence(feed);
      if (stopped) return;
      setExists((was) => (was === true ? true : found));
      if (found === false) timer = setTimeout(ask, RECHECK_MS);
    };
    void ask();
    const unsubscribe = token.subscribe(() => {
      clearTimeout(timer);
      void ask();
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [key]);
  const seen = useCallback(() => setExists(true), []);
  return /** @type {const} */ ([exists, seen]);
}

/**
 * Asked of the stream's log (200 with `last_seq` 0 when it has no Wires), not
 * of `GET /v1/streams/{id}`, whose 404 the browser would log as an error.
 * @returns {Promise<boolean | null>}
 */
async function existence(feed) {
  const path = feed.role
    ? `/v1/roles/${enc(feed.role)}/wires?limit=1`
    : `/v1/streams/${enc(feed.stream)}/wires?limit=1`;
  const page = await load(path);
  return page.ok ? Number(page.body?.last_seq ?? 0) > 0 : null;
}
