// Seed 003's Runtime v1 view: chat with a channel (post a message, see the
// route decision and the replies — worker reports, branch conclusions, the
// visor's digests — arrive live), the channel's runtime tasks and workers with
// their live status, the worker/branch activity feed, and an artifact viewer.
// Live: the view follows the channel's stream (channel:<id>), where the
// workers' lifecycle events land too, and reads the new envelopes on each Wire.
// Its state is in the route: `#/runtime?channel=<channel_id>[&artifact=<id>]`.

import { RuntimeChannel } from '/client.js';
import { client, readFailure, whatFailed } from '../lib/api.js';
import { token } from '../lib/auth.js';
import { useStreamTick } from '../lib/live-feed.js';
import { pickedView } from '../lib/picker.js';
import { hrefOf } from '../lib/router.js';
import { html, useEffect, useState } from '../lib/ui.js';

const FEED_MAX = 300;
const CHAT = new Set([
  'channel.message.received',
  'channel.route.decided',
  'worker.completed',
  'branch.conclusion',
  'visor.bulletin.generated',
]);
const ACTIVITY = /^(worker|branch|compactor)\./;
/** Activity: worker, branch and compactor events, and the decisions that spawned one. */
const isActivity = (e) =>
  ACTIVITY.test(e.messageType) ||
  (e.messageType === 'channel.route.decided' && e.payload?.action !== 'respond');

const RuntimeView = pickedView(
  {
    view: 'runtime',
    title: 'Runtime channels',
    param: 'channel',
    placeholder: 'channel id',
    label: 'channel id',
  },
  (channel, params) =>
    html`<${Channel} key=${channel} id=${channel} artifact=${params.get('artifact')} />`,
);

function Channel({ id, artifact }) {
  const moved = useStreamTick(`channel:${id}`);
  // Bumped here too: after a send, and while the events read has more pages.
  const [more, setTick] = useState(0);
  const tick = moved + more;
  const [events, setEvents] = useState([]);
  const [state, setState] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    const after = events.at(-1)?.seq ?? 0;
    const path = `/v1/channels/${encodeURIComponent(id)}`;
    Promise.all([
      client.http.request('GET', `${path}/events?after_seq=${after}&limit=500`),
      client.http.request('GET', `${path}/state`),
    ])
      .then(async ([page, s]) => [page, await withWorkerStatus(s.body)])
      .then(([page, s]) => {
        if (!live) return;
        const fresh = page.body.events.filter((e) => e.seq > after);
        setEvents((old) => {
          const last = old.at(-1)?.seq ?? 0;
          const add = fresh.filter((e) => e.seq > last);
          return add.length > 0 ? [...old, ...add].slice(-FEED_MAX) : old;
        });
        setState(s);
        setError('');
        if (page.body.next_after_seq !== null) setTick((t) => t + 1);
      })
      .catch((e) => {
        // Server away: what is shown stays (the shell says since when).
        const why = live ? readFailure(e, state !== null) : null;
        if (why !== null) setError(why);
      });
    return () => {
      live = false;
    };
  }, [id, tick]);
  if (error && !state) return html`<p class="na" id="runtime-error">${error}</p>`;
  if (!state) return html`<p class="muted">loading…</p>`;
  const envelopes = events.map((e) => ({ seq: e.seq, ...e.envelope }));
  const say = (text, workerId) => {
    const ch = new RuntimeChannel(client, id);
    return (workerId ? ch.route(workerId, text) : ch.say(text)).then(() => setTick((t) => t + 1));
  };
  return html`
    <div class="runtime" data-last-seq=${events.at(-1)?.seq ?? 0}>
      ${error ? html`<p class="na" id="runtime-error">${error}</p>` : null}
      <p class="muted" id="runtime-usage">
        context ${state.liveTokens} / ${state.contextBudget} tokens
        (${Math.round(state.utilization * 100)} %) · ${state.messages} messages
      </p>
      <${Chat} envelopes=${envelopes.filter((e) => CHAT.has(e.messageType))} state=${state} say=${say} />
      <${Tasks} envelopes=${envelopes} state=${state} />
      <${Activity} envelopes=${envelopes.filter(isActivity)} />
      <${Artifacts} envelopes=${envelopes} channel=${id} open=${artifact} />
    </div>
  `;
}

const ENDED = new Set(['completed', 'failed']);

/**
 * The channel hears a worker's lifecycle, not every status change (a routed
 * message sets an interactive worker running on its own stream): the live
 * status of each worker still at work comes from the worker's own state.
 */
async function withWorkerStatus(state) {
  const working = Object.entries(state.workers).filter(([, w]) => !ENDED.has(w.status));
  const read = await Promise.all(
    working.map(([id]) =>
      client.http
        .request('GET', `/v1/workers/${encodeURIComponent(id)}/state`)
        .then((res) => [id, res.body.status])
        .catch(() => [id, null]),
    ),
  );
  const workers = { ...state.workers };
  for (const [id, status] of read) if (status) workers[id] = { ...workers[id], status };
  return { ...state, workers };
}

/** One line of the chat: who said it, and what. */
function chatLine(e) {
  const p = e.payload ?? {};
  switch (e.messageType) {
    case 'channel.message.received':
      return [p.role ?? 'user', `${e.workerId ? `→ ${e.workerId}: ` : ''}${p.text}`];
    case 'channel.route.decided': {
      const target = p.branchId ?? p.workerId ?? '';
      return ['route', `${p.rule} → ${p.action}${target ? ` ${target}` : ''}`];
    }
    case 'worker.completed':
      return [e.workerId, p.report?.summary ?? ''];
    case 'branch.conclusion':
      return [e.branchId, p.conclusion];
    default:
      return ['visor', p.digest ?? ''];
  }
}

function Chat({ envelopes, state, say }) {
  const [text, setText] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState('');
  const interactive = Object.entries(state.workers).filter(
    ([, w]) => w.mode === 'interactive' && !ENDED.has(w.status),
  );
  const submit = (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    say(text, to)
      .then(() => {
        setText('');
        setError('');
      })
      .catch((err) => setError(`not sent: ${whatFailed(err)}`));
  };
  return html`
    <article id="runtime-chat" data-count=${envelopes.length}>
      <h3>Chat</h3>
      <ol class="runtime-chat">
        ${envelopes.map((e) => {
          const [who, what] = chatLine(e);
          return html`<li key=${e.seq} data-type=${e.messageType} data-seq=${e.seq}>
            <strong>${who}</strong> ${what}</li>`;
        })}
      </ol>
      <form id="runtime-say" onSubmit=${submit}>
        <input name="text" aria-label="message" value=${text} onInput=${(e) => setText(e.currentTarget.value)} />
        <select name="to" aria-label="send to" value=${to} onChange=${(e) => setTo(e.currentTarget.value)}>
          <option value="">the channel (routed by its policy)</option>
          ${interactive.map(([w]) => html`<option key=${w} value=${w}>worker ${w}</option>`)}
        </select>
        <button type="submit">send</button>
      </form>
      ${error ? html`<p class="na">${error}</p>` : null}
    </article>
  `;
}

/** The channel's workers and branches, with what their spawn and end said. */
function Tasks({ envelopes, state }) {
  const about = {};
  for (const e of envelopes) {
    const key = e.workerId ? `worker:${e.workerId}` : e.branchId ? `branch:${e.branchId}` : null;
    if (!key || !/^(worker|branch)\./.test(e.messageType)) continue;
    about[key] = { ...about[key], ...(e.payload?.goal ? { goal: e.payload.goal } : {}) };
  }
  const rows = [
    ...Object.entries(state.workers).map(([id, w]) => ({ kind: 'worker', id, ...w })),
    ...Object.entries(state.branches).map(([id, b]) => ({ kind: 'branch', id, ...b })),
  ];
  return html`
    <article id="runtime-tasks" data-count=${rows.length}>
      <h3>Tasks and workers</h3>
      ${rows.length === 0 ? html`<p class="muted">none yet</p>` : null}
      <table>
        <tbody>
          ${rows.map(
            (
              r,
            ) => html`<tr key=${`${r.kind}:${r.id}`} data-kind=${r.kind} data-id=${r.id} data-status=${r.status}>
              <td>${r.kind}</td><td><code>${r.id}</code></td><td class="status">${r.status}</td>
              <td>${r.mode ?? ''}</td><td>${about[`${r.kind}:${r.id}`]?.goal ?? ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </article>
  `;
}

function activityText(e) {
  const p = e.payload ?? {};
  const who = e.workerId ?? e.branchId ?? p.workerId ?? p.branchId ?? '';
  const what =
    (e.messageType === 'channel.route.decided' ? `${p.action} (rule ${p.rule})` : null) ??
    p.status ??
    p.reason ??
    p.level ??
    p.report?.outcome ??
    (p.conclusion ? 'concluded' : '');
  const note = p.note ?? p.message ?? p.goal ?? '';
  return [who, what, note].filter((s) => s !== '').join(' · ');
}

function Activity({ envelopes }) {
  return html`
    <article id="runtime-activity" data-count=${envelopes.length}>
      <h3>Worker and branch activity</h3>
      <ol class="runtime-feed">
        ${envelopes.map(
          (e) => html`<li key=${e.seq} data-type=${e.messageType}>
            <code>#${e.seq}</code> <strong>${e.messageType}</strong> ${activityText(e)}
            <small class="muted"> ${e.ts}</small></li>`,
        )}
      </ol>
    </article>
  `;
}

function Artifacts({ envelopes, channel, open }) {
  const refs = [...new Set(envelopes.flatMap((e) => e.payload?.artifactRefs ?? []))];
  return html`
    <article id="runtime-artifacts" data-count=${refs.length}>
      <h3>Artifacts</h3>
      ${refs.length === 0 ? html`<p class="muted">none yet</p>` : null}
      <ul>
        ${refs.map(
          (ref) => html`<li key=${ref}>
            <a href=${hrefOf('runtime', { channel, artifact: ref })} data-artifact=${ref}>${ref}</a></li>`,
        )}
      </ul>
      ${open ? html`<${Artifact} key=${open} id=${open} />` : null}
    </article>
  `;
}

/** The artifact's bytes from R2 (`GET /v1/artifacts/{id}/content`): text shown, anything else described. */
function Artifact({ id }) {
  const [shown, setShown] = useState(null);
  useEffect(() => {
    const headers = { Authorization: `Bearer ${token.get()}` };
    fetch(`/v1/artifacts/${encodeURIComponent(id)}/content`, { headers })
      .then(async (res) => {
        const type = res.headers.get('Content-Type') ?? '';
        if (!res.ok) return setShown({ type, error: (await res.json()).detail ?? res.statusText });
        const textual = /^text\/|json|xml|yaml/.test(type);
        const size = Number(res.headers.get('Content-Length') ?? 0);
        setShown({ type, size, text: textual ? await res.text() : null });
      })
      .catch((e) => setShown({ type: '', error: e?.message ?? String(e) }));
  }, [id]);
  if (!shown) return html`<p class="muted">loading ${id}…</p>`;
  return html`
    <figure id="runtime-artifact" data-id=${id} data-type=${shown.type}>
      <figcaption><code>${id}</code> · ${shown.type}${shown.size ? ` · ${shown.size} bytes` : ''}</figcaption>
      ${
        shown.error
          ? html`<p class="na">${shown.error}</p>`
          : shown.text === null
            ? html`<p class="muted">binary content, not shown</p>`
            : html`<pre>${shown.text}</pre>`
      }
    </figure>
  `;
}

export const runtime = { id: 'runtime', title: 'Runtime', View: RuntimeView };
