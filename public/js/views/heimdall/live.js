// What seed 001's two views share: the workspace picker, reads that follow the
// workspace's streams live, and the plain-text audit tail.
// A view's state is in the route: `#/workspace?ws=<id>`, `#/claims?ws=<id>`.

import { client, load, serverAnswers } from '../../lib/api.js';
import { token } from '../../lib/auth.js';
import { feedOf, follow, reconnected } from '../../lib/live-feed.js';
import { keepAnswered, usePoll } from '../../lib/poll.js';
import { hrefOf, navigate } from '../../lib/router.js';
import { answered, html, useEffect, useState } from '../../lib/ui.js';

/** The workspace's base path under /v1. */
export const basePath = (ws) => `/v1/workspaces/${encodeURIComponent(ws)}`;

/**
 * The form that opens a workspace in `view`, and the workspaces the read
 * models know that have a `kind` stream (`workspace` or `surfaces`), as links.
 */
export function WorkspacePicker({ view, kind, ws }) {
  const [known] = usePoll([`/v1/streams?type=${kind}&limit=50`], { everyMs: 10_000 }) ?? [];
  const names = known?.ok
    ? (known.body?.streams ?? []).map((s) => s.stream_id.slice(kind.length + 1))
    : [];
  return html`
    <form class="picker" onSubmit=${(e) => {
      e.preventDefault();
      navigate(hrefOf(view, { ws: String(new FormData(e.currentTarget).get('ws') ?? '') }));
    }}>
      <input name="ws" placeholder="workspace" value=${ws} aria-label="workspace" />
      <button type="submit">open</button>
      ${names.map(
        (
          name,
        ) => html` <a key=${name} class="known-ws" data-ws=${name} href=${hrefOf(view, { ws: name })}
          aria-current=${name === ws ? 'page' : undefined}>${name}</a>`,
      )}
    </form>
  `;
}

/**
 * Reads `paths` now, and again whenever a Wire arrives on one of `streams`
 * (the first drives the header's connection badge). Reads never overlap:
 * Wires that arrive during one ask for one more after it, so a backlog
 * replayed at open costs a few reads, not one per Wire. While the server is
 * away a panel keeps its last answer (the shell says since when), and reads
 * again as soon as a feed is back.
 * `read(path)` is `load` unless given (the audit tail is text).
 * @param {string[]} streams @param {string[]} paths
 * @returns {import('../../lib/api.js').Loaded[] | null}
 */
export function useLiveReads(streams, paths, read = load) {
  const [answers, setAnswers] = useState(null);
  const key = `${streams.join(',')}\n${paths.join('\n')}`;
  useEffect(() => {
    let stopped = false;
    let running = false;
    let again = false;
    const refresh = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const loaded = await Promise.all(paths.map(read));
          if (!stopped) setAnswers((was) => keepAnswered(was, loaded));
        } while (again && !stopped);
      } finally {
        running = false;
      }
    };
    const [first, ...rest] = streams;
    const feeds = [
      follow(feedOf('stream', first), { onWires: () => void refresh() }),
      ...rest.map((stream) => {
        const sub = client.subscribe(stream, { afterSeq: 0, onWires: () => void refresh() });
        // The badge shows the first feed; a failure of this one only stops its redraws.
        sub.closed.catch((error) => console.warn(`${stream}: ${error?.message ?? error}`));
        return sub;
      }),
    ];
    void refresh();
    const unsubscribe = [token, reconnected].map((store) => store.subscribe(() => void refresh()));
    return () => {
      stopped = true;
      for (const stop of unsubscribe) stop();
      for (const feed of feeds) feed.close();
    };
    // `key` stands for `streams` and `paths`.
  }, [key]);
  return answers;
}

/** GET a text/plain path (the audit log), answered like `load`. */
export async function loadText(path) {
  try {
    const jwt = token.get();
    const res = await fetch(path, {
      headers: jwt ? { Authorization: `Bearer ${jwt}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    // A gateway's 502–504 is no answer from the server, as in `load`.
    const down = res.status >= 502 && res.status <= 504;
    serverAnswers(!down);
    if (res.ok) return { ok: true, body: await res.text(), stale: null };
    return { ok: false, reason: `unavailable (${res.status})`, missing: res.status === 404, down };
  } catch (error) {
    serverAnswers(false);
    const why = error?.name === 'TimeoutError' ? 'no answer in 10 s' : (error?.message ?? error);
    return { ok: false, reason: `server unreachable (${why})`, missing: false, down: true };
  }
}

/** One panel: its title, then the answer drawn by `draw`, or why there is none. */
export function Panel({ id, title, answer, draw }) {
  return html`
    <section id=${id} aria-labelledby=${`${id}-title`}>
      <h3 id=${`${id}-title`}>${title}</h3>
      ${answered(answer, draw)}
    </section>
  `;
}
