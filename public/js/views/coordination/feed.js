// The live Wire table of the followed feed, with counters that say what
// arrived, the last seq, the rate and how many are anchored. The table itself
// is drawn by WireTable, outside Preact: at thousands of Wires a second it
// batches rows per animation frame, which a virtual DOM diff would only slow.
// Above it, why anchoring is delayed (./anchor-delay.js); a proof link opens
// the proof, checked against the mirror (./proof-panel.js).

import { token } from '../../lib/auth.js';
import { follow } from '../../lib/live-feed.js';
import { createStore, useStore } from '../../lib/store.js';
import { html, useEffect, useRef, useState } from '../../lib/ui.js';
import { AnchorDelay, DELAY_SHOWN_MS } from './anchor-delay.js';
import { ProofPanel } from './proof-panel.js';
import { togglePayload, WireTable } from './wire-table.js';

// Explicit roles: at phone width the table is drawn as stacked cards (display:
// block/flex), which would otherwise drop its table semantics in some browsers.
const COLUMNS = ['seq', 'received', 'type', 'sender', 'anchor', 'payload'];
const EMPTY = {
  count: 0,
  lastSeq: 0,
  gaps: 0,
  dups: 0,
  rate: 0,
  anchored: 0,
  waiting: { count: 0, since: /** @type {number | null} */ (null) },
};

/**
 * @param {{ feed: ReturnType<typeof import('../../lib/live-feed.js').feedOf> | null,
 *   onWires?: () => void }} props `onWires` is told whenever Wires arrive.
 */
export function Feed({ feed, onWires }) {
  const told = useRef(onWires);
  told.current = onWires;
  const body = useRef(null);
  const empty = useRef(null);
  // Counters change every frame during a replay: only <Stats> re-renders for them.
  const [counters] = useState(() => createStore(EMPTY));
  const [proof, setProof] = useState(
    /** @type {{ wireId: string, streamId: string } | null} */ (null),
  );
  const label = feed?.label ?? '';
  // The feed's identity: a stream named role:x is not the role feed of x.
  const id = feed ? JSON.stringify(feed) : '';

  useEffect(() => {
    if (!feed) return;
    let following = null;
    let rate = 0;
    let frame = 0;
    // At most once a frame, however many batches and anchors arrive in it.
    const paint = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        if (!following) return;
        const { anchoredCount: anchored } = table;
        counters.set({ ...following.stats, rate, anchored, waiting: table.waitingSince() });
      });
    };
    const table = new WireTable(body.current, empty.current, paint);
    const start = () => {
      following?.close();
      table.reset();
      following = follow(feed, {
        onWires: (wires) => {
          table.add(wires);
          told.current?.();
        },
        onAnchored: (updates) => {
          table.anchor(updates);
          paint();
        },
        onCaughtUp: paint,
      });
      paint();
    };
    start();
    const ticker = setInterval(() => {
      rate = following?.stats.window ?? 0;
      if (following) following.stats.window = 0;
      table.tick();
      paint();
    }, 1000);
    // A new token may read what the old one could not: follow again with it.
    const unsubscribe = token.subscribe(start);
    return () => {
      unsubscribe();
      clearInterval(ticker);
      cancelAnimationFrame(frame);
      following?.close();
      table.reset();
      counters.set(EMPTY);
    };
  }, [id]);

  return html`
    <section id="feed" aria-labelledby="feed-title">
      <div class="section-head">
        <h2 id="feed-title">Wires <span id="feed-name" class="muted">${label}</span></h2>
        <${Stats} counters=${counters} />
      </div>
      <${Delay} counters=${counters} />
      ${proof && html`<${ProofPanel} ...${proof} onClose=${() => setProof(null)} />`}
      <div class="table-wrap">
        <table id="wires" role="table" onClick=${(event) => onTableClick(event, setProof)}>
          <thead role="rowgroup">
            <tr role="row">
              ${COLUMNS.map((c) => html`<th role="columnheader">${c}</th>`)}
            </tr>
          </thead>
          <tbody role="rowgroup" ref=${body}></tbody>
        </table>
        <p id="feed-empty" class="muted" ref=${empty}>
          Pick a project, role or stream to watch its Wires arrive live.
        </p>
      </div>
    </section>
  `;
}

function Stats({ counters }) {
  const shown = useStore(counters);
  return html`
    <dl
      id="stats"
      data-count=${shown.count}
      data-last-seq=${shown.lastSeq}
      data-gaps=${shown.gaps}
      data-dups=${shown.dups}
    >
      <div><dt>received</dt><dd id="stat-count">${shown.count.toLocaleString()}</dd></div>
      <div><dt>last seq</dt><dd id="stat-last">${shown.lastSeq ? `#${shown.lastSeq}` : '–'}</dd></div>
      <div><dt>rate</dt><dd id="stat-rate">${shown.rate.toLocaleString()}/s</dd></div>
      <div><dt>anchored</dt><dd id="stat-anchored">${shown.anchored.toLocaleString()}</dd></div>
    </dl>
  `;
}

/** Why the oldest pending Wire still waits, once it has waited a while. */
function Delay({ counters }) {
  const { waiting } = useStore(counters);
  const now = Date.now();
  if (!waiting.count || waiting.since === null || now - waiting.since < DELAY_SHOWN_MS) return null;
  return html`<${AnchorDelay} count=${waiting.count} since=${waiting.since} now=${now} />`;
}

/** Payload buttons expand; a proof link (fetched with the token) opens the proof panel. */
function onTableClick(event, openProof) {
  const expand = event.target.closest?.('button.expand');
  if (expand) return togglePayload(expand);
  const link = event.target.closest?.('a[data-proof]');
  if (!link) return;
  event.preventDefault();
  openProof({ wireId: link.dataset.proof ?? '', streamId: link.dataset.stream ?? '' });
}
