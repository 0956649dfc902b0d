// The dashboard: pick a project, role or stream and follow it live through
// the SDK (public/client.js, bundled from src/client), which acks, reconnects
// and resumes from the last stream_seq so no Wire is lost or shown twice.
import { WirestreamClient } from '/client.js';
import { Board } from './board.js';
import { WireTable } from './wire-table.js';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'wirestream.token';

// A token can arrive in the fragment (never sent to the server) and is kept
// for this tab only.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get('token')) {
  sessionStorage.setItem(TOKEN_KEY, fragment.get('token'));
  history.replaceState(null, '', location.pathname + location.search);
}
$('token').value = sessionStorage.getItem(TOKEN_KEY) ?? '';
$('token').addEventListener('change', () => {
  sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
  if (current) watch(current.kind, current.name);
});

const client = new WirestreamClient({
  baseUrl: location.origin,
  token: () => sessionStorage.getItem(TOKEN_KEY) || undefined,
  pingMs: 15_000,
  reconnect: { baseMs: 200, maxMs: 3000 },
});
const table = new WireTable($('wires').tBodies[0], $('feed-empty'), () => paintStats());
const board = new Board(client, $('task-board'), $('agent-list'), $('projection-notice'));

const stats = { count: 0, lastSeq: 0, gaps: 0, dups: 0, window: 0 };
let subscription = null;
let current = null;

function setConn(state, detail) {
  const badge = $('conn');
  badge.dataset.state = state;
  badge.textContent = state === 'reconnecting' && detail ? `reconnecting… (${detail})` : state;
}

function paintStats() {
  const box = $('stats');
  box.dataset.count = String(stats.count);
  box.dataset.lastSeq = String(stats.lastSeq);
  box.dataset.gaps = String(stats.gaps);
  box.dataset.dups = String(stats.dups);
  $('stat-count').textContent = stats.count.toLocaleString();
  $('stat-last').textContent = stats.lastSeq ? `#${stats.lastSeq}` : '–';
  $('stat-anchored').textContent = table.anchoredCount.toLocaleString();
}

setInterval(() => {
  $('stat-rate').textContent = `${stats.window.toLocaleString()}/s`;
  stats.window = 0;
  paintStats();
}, 1000);

function feedOf(kind, name) {
  if (kind === 'role')
    return { role: name, label: `role:${name}`, query: `role=${encodeURIComponent(name)}` };
  const streamId = kind === 'project' && !name.includes(':') ? `project:${name}` : name;
  const query = kind === 'project' ? `correlation_id=${encodeURIComponent(streamId)}` : '';
  return { stream: streamId, label: streamId, query };
}

function watch(kind, name) {
  subscription?.close();
  current = { kind, name };
  table.reset();
  Object.assign(stats, { count: 0, lastSeq: 0, gaps: 0, dups: 0, window: 0 });
  paintStats();
  const feed = feedOf(kind, name);
  $('feed-name').textContent = feed.label;
  history.replaceState(null, '', `?${kind}=${encodeURIComponent(name)}`);
  board.watch(feed.query);
  const options = {
    onWires: (wires) => {
      for (const wire of wires) {
        // The SDK already guarantees order; the page double-checks what it shows.
        if (wire.stream_seq <= stats.lastSeq) stats.dups++;
        else if (wire.stream_seq !== stats.lastSeq + 1) stats.gaps++;
        stats.lastSeq = Math.max(stats.lastSeq, wire.stream_seq);
      }
      stats.count += wires.length;
      stats.window += wires.length;
      table.add(wires);
    },
    onAnchored: (updates) => {
      table.anchor(updates);
      paintStats();
    },
    onState: (state, detail) => setConn(state, detail?.reason),
    onCaughtUp: () => paintStats(),
  };
  try {
    subscription = feed.role
      ? client.subscribeRole(feed.role, options)
      : client.subscribe(feed.stream, options);
  } catch (error) {
    setConn('error', String(error));
    return;
  }
  subscription.closed.catch((error) => {
    const badge = $('conn');
    badge.dataset.state = 'error';
    badge.textContent =
      error?.status === 404 ? 'not available' : `error: ${error?.message ?? error}`;
  });
}

$('pick').addEventListener('submit', (event) => {
  event.preventDefault();
  const name = $('name').value.trim();
  if (name) watch($('kind').value, name);
});

// Proof links: fetched with the token and shown in place of navigating away.
$('wires').addEventListener('click', async (event) => {
  const link = event.target.closest?.('a[data-proof]');
  if (!link) return;
  event.preventDefault();
  try {
    const proof = await client.proof(link.dataset.proof, { streamId: link.dataset.stream });
    link.title = JSON.stringify(proof, null, 2);
    if (proof.mirror_url) window.open(proof.mirror_url, '_blank', 'noopener');
  } catch (error) {
    link.title = `proof unavailable: ${error?.message ?? error}`;
  }
});

async function loadKnownStreams() {
  try {
    const { streams } = await client.get('/v1/streams?limit=200');
    $('known-streams').replaceChildren(
      ...streams.map((s) =>
        Object.assign(document.createElement('option'), { value: s.stream_id }),
      ),
    );
  } catch {
    // The stream list is a convenience; the read model may not exist here.
  }
}

const params = new URLSearchParams(location.search);
for (const kind of ['project', 'role', 'stream']) {
  const name = params.get(kind);
  if (name) {
    $('kind').value = kind;
    $('name').value = name;
    watch(kind, name);
    break;
  }
}
void loadKnownStreams();
