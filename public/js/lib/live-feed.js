// Following a feed live, shared by every view that shows Wires as they
// arrive. The SDK does the hard parts — a single-use ticket instead of the
// token in the URL, acks, reconnects that resume after the last stream_seq —
// and this adds what a page shows: counters that double-check the order, and
// the connection state the header's badge displays.
import { client, serverAnswers } from './api.js';
import { createStore } from './store.js';
import { useEffect, useState } from './ui.js';

/**
 * @typedef {{ state: string, detail?: string, tries?: number, nextAt?: number | null }} Connection
 * While `reconnecting`: the number of the next try (those before it failed), and
 * when it starts (`nextAt`; null once under way).
 */

/** The state of the feed the current view follows (`idle` when none). */
export const connection = createStore(/** @type {Connection} */ ({ state: 'idle' }));

/**
 * Goes up each time a followed feed is back after reconnecting: the server is
 * up again, so polled views read again at once instead of at their next turn.
 */
export const reconnected = createStore(0);

/**
 * Set while the followed project, role or stream has no Wires (`'project'`…):
 * the badge then says "no such project" rather than a quiet "live".
 */
export const absent = createStore(/** @type {string | null} */ (null));

/**
 * What to follow: a project (its `project:<name>` stream), a role pool's feed
 * or any stream. `query` filters the read models to the same scope.
 * @param {'project' | 'role' | 'stream'} kind @param {string} name
 */
export function feedOf(kind, name) {
  if (kind === 'role')
    return { role: name, label: `role:${name}`, query: `role=${encodeURIComponent(name)}` };
  const streamId = kind === 'project' && !name.includes(':') ? `project:${name}` : name;
  const query = kind === 'project' ? `correlation_id=${encodeURIComponent(streamId)}` : '';
  return { stream: streamId, label: streamId, query };
}

/**
 * Follows `feed` until `close()`. `stats` counts what arrived and any gap or
 * duplicate the page would have shown (the SDK already guarantees order; the
 * page checks what it draws).
 * @param {ReturnType<typeof feedOf>} feed
 * @param {{ onWires: (wires: any[]) => void, onAnchored?: (updates: any[]) => void,
 *   onCaughtUp?: () => void }} handlers
 */
export function follow(feed, handlers) {
  const stats = { count: 0, lastSeq: 0, gaps: 0, dups: 0, window: 0 };
  let tries = 0;
  const setConn = (state, detail) => connection.set(detail ? { state, detail } : { state });
  const options = {
    onWires: (wires) => {
      for (const wire of wires) {
        if (wire.stream_seq <= stats.lastSeq) stats.dups++;
        else if (wire.stream_seq !== stats.lastSeq + 1) stats.gaps++;
        stats.lastSeq = Math.max(stats.lastSeq, wire.stream_seq);
      }
      stats.count += wires.length;
      stats.window += wires.length;
      handlers.onWires(wires);
    },
    onAnchored: (updates) => handlers.onAnchored?.(updates),
    onState: (state, detail) => {
      if (closed) return;
      if (state === 'reconnecting') {
        // Called when a try is scheduled (with its delay), then as it starts.
        const was = connection.get();
        const scheduled = detail?.delayMs !== undefined;
        if (scheduled) tries++;
        const nextAt = scheduled ? Date.now() + detail.delayMs : null;
        return connection.set({ state, detail: detail?.reason ?? was.detail, tries, nextAt });
      }
      if (tries > 0 && (state === 'catching-up' || state === 'live')) {
        tries = 0;
        serverAnswers(true);
        reconnected.set(reconnected.get() + 1);
      }
      setConn(state, detail?.reason);
    },
    onCaughtUp: () => handlers.onCaughtUp?.(),
  };
  let subscription = null;
  let closed = false;
  try {
    subscription = feed.role
      ? client.subscribeRole(feed.role, options)
      : client.subscribe(feed.stream, options);
    subscription.closed.catch((error) => {
      if (closed) return;
      setConn(
        'error',
        error?.status === 404 ? 'not available' : `error: ${error?.message ?? error}`,
      );
    });
  } catch (error) {
    setConn('error', String(error));
  }
  return {
    stats,
    close() {
      closed = true;
      subscription?.close();
      setConn('idle');
    },
  };
}

/**
 * A subscription's `onState` that tells the shell when its feed lost the
 * server (a reconnect try failed, so the server is away, not just a socket
 * closed) and calls `onBack` each time the feed is live again after
 * reconnecting: the server answers again, and a view reads again what may
 * have moved meanwhile.
 * @param {() => void} onBack
 */
export function onReconnect(onBack) {
  let scheduled = 0;
  return (/** @type {string} */ state, /** @type {any} */ detail) => {
    if (state === 'reconnecting') {
      // Called when a try is scheduled (with its delay), then as it starts.
      if (detail?.delayMs !== undefined && ++scheduled >= 2) serverAnswers(false);
    } else if (scheduled > 0 && (state === 'catching-up' || state === 'live')) {
      scheduled = 0;
      serverAnswers(true);
      onBack();
    }
  };
}

/**
 * A counter that goes up on each Wire of `streamId` (followed from the start
 * while the component is mounted), and once the feed is back after an outage:
 * a view re-reads what it shows when it moves.
 * @param {string} streamId @returns {number}
 */
export function useStreamTick(streamId) {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const bump = () => setTick((t) => t + 1);
    const sub = client.subscribe(streamId, {
      afterSeq: 0,
      onWires: bump,
      onState: onReconnect(bump),
    });
    return () => sub.close();
  }, [streamId]);
  return tick;
}
