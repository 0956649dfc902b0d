// Polling reads for a panel: every `everyMs` while the endpoints answer,
// every `missingMs` while none of them exists here. Re-armed whatever happens,
// so one failed draw or hung read never leaves a panel frozen. While the
// server is away a panel keeps its last answers (the shell says since when),
// and reads again as soon as a live feed is back.

import { load } from './api.js';
import { token } from './auth.js';
import { reconnected } from './live-feed.js';
import { useEffect, useState } from './ui.js';

/**
 * The answers to show after a read: each new one, except that a read which
 * found no server (`down`) keeps the answer it would replace.
 * @param {import('./api.js').Loaded[] | null} was @param {import('./api.js').Loaded[]} loaded
 */
export function keepAnswered(was, loaded) {
  return loaded.map((a, i) => (!a.ok && a.down && was?.[i]?.ok ? was[i] : a));
}

/**
 * The latest answers to `paths` (null until the first arrive), read again
 * every few seconds and at once when the paths or the token change.
 * @param {string[]} paths @returns {import('./api.js').Loaded[] | null}
 */
export function usePoll(paths, { everyMs = 2_000, missingMs = 15_000 } = {}) {
  const [answers, setAnswers] = useState(null);
  const key = paths.join('\n');
  useEffect(() => {
    let timer = 0;
    let stopped = false;
    // Reads may overlap (a reconnect asks at once): an older one never overwrites a newer.
    let asked = 0;
    let shown = 0;
    const poll = async () => {
      let missing = false;
      const mine = ++asked;
      try {
        const loaded = await Promise.all(paths.map(load));
        if (stopped || mine < shown) return;
        shown = mine;
        setAnswers((was) => keepAnswered(was, loaded));
        missing = loaded.every((a) => !a.ok && a.missing);
      } catch (error) {
        console.warn('poll: redraw failed', error);
      } finally {
        clearTimeout(timer);
        if (!stopped) timer = setTimeout(poll, missing ? missingMs : everyMs);
      }
    };
    void poll();
    const unsubscribe = [token, reconnected].map((store) => store.subscribe(() => void poll()));
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const stop of unsubscribe) stop();
    };
    // `key` stands for `paths`: a new array with the same paths is the same poll.
  }, [key, everyMs, missingMs]);
  return answers;
}

/** Re-renders every `ms` and returns the time: for countdowns and "ago". */
export function useNow(ms = 1000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
