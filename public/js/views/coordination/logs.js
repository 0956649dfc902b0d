// Stream logs read incrementally from the StreamObjects (GET
// /v1/streams/{id}/wires?after_seq=…): the project stream's task graph, a
// task's timeline across attempts, an agent's own stream. A stream whose
// last_seq is known from a read model is asked again only when it grew;
// one without is asked every `everyMs`.

import { load } from '../../lib/api.js';
import { token } from '../../lib/auth.js';
import { useEffect, useRef, useState } from '../../lib/ui.js';

const PAGE = 500;

/** "task:co-104:attempt:2" → { taskId: 'co-104', attempt: 2 } (null for other kinds). */
export function taskOf(streamId) {
  const m = /^task:(.+):attempt:(\d+)$/.exec(streamId ?? '');
  return m ? { taskId: m[1], attempt: Number(m[2]) } : null;
}

/**
 * The Wires of each stream in `targets` (`{ id, seq? }`), oldest first:
 * `{ logs: Map<streamId, wire[]>, failed: string | null }`.
 * @param {{ id: string, seq?: number | null }[]} targets
 */
export function useLogs(targets, { everyMs = 2_000 } = {}) {
  const logs = useRef(new Map());
  const [state, setState] = useState({ logs: logs.current, version: 0, failed: null });
  const key = targets.map((t) => `${t.id}@${t.seq ?? ''}`).join('\n');
  useEffect(() => {
    let stopped = false;
    let timer = 0;
    let lastFailed = null;
    const read = async () => {
      let changed = false;
      let failed = null;
      for (const target of targets) {
        const have = logs.current.get(target.id) ?? [];
        const after = have.at(-1)?.stream_seq ?? 0;
        if (target.seq != null && target.seq <= after) continue;
        const more = await readAfter(target.id, after);
        if (stopped) return;
        if (!more.ok) failed = more.reason;
        else if (more.wires.length > 0) {
          logs.current.set(target.id, [...have, ...more.wires]);
          changed = true;
        } else if (!logs.current.has(target.id)) {
          logs.current.set(target.id, have);
          changed = true;
        }
      }
      if (changed || failed !== lastFailed)
        setState((s) => ({ logs: logs.current, version: s.version + 1, failed }));
      lastFailed = failed;
      clearTimeout(timer);
      if (!stopped && targets.some((t) => t.seq == null)) timer = setTimeout(read, everyMs);
    };
    void read();
    const unsubscribe = token.subscribe(() => void read());
    return () => {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [key]);
  return state;
}

/** Every Wire after `after`, page by page. */
async function readAfter(streamId, after) {
  const wires = [];
  let from = after;
  for (;;) {
    const path = `/v1/streams/${encodeURIComponent(streamId)}/wires?after_seq=${from}&limit=${PAGE}`;
    const page = await load(path);
    if (!page.ok) return { ok: false, reason: page.reason, wires };
    wires.push(...(page.body?.wires ?? []));
    if (page.body?.next_after_seq == null) return { ok: true, wires };
    from = page.body.next_after_seq;
  }
}
