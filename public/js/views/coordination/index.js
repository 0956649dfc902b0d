// Seed 000's coordination: pick a project, role feed or stream, watch its
// Wires arrive live and turn anchored, beside the task board and the agents.
// Its state is in the route: `#/coordination?project=kv` (or role=, stream=).

import { client } from '../../lib/api.js';
import { token } from '../../lib/auth.js';
import { feedOf } from '../../lib/live-feed.js';
import { hrefOf, navigate } from '../../lib/router.js';
import { useStore } from '../../lib/store.js';
import { html, useEffect, useState } from '../../lib/ui.js';
import { Board } from './board.js';
import { AgentDetail, TaskDetail } from './detail.js';
import { useExists } from './exists.js';
import { Feed } from './feed.js';
import { taskOf } from './logs.js';

const KINDS = /** @type {const} */ (['project', 'role', 'stream']);

function CoordinationView({ route }) {
  const kind = KINDS.find((k) => route.params.get(k)) ?? null;
  const name = kind ? (route.params.get(kind) ?? '') : '';
  const [page, id] = route.path;
  if (page === 'task' && id)
    return html`<${TaskDetail} key=${id} taskId=${id} params=${route.params} />`;
  if (page === 'agent' && id)
    return html`<${AgentDetail} key=${id} agentId=${id} params=${route.params} />`;
  return html`
    <${Picker} kind=${kind ?? 'project'} name=${name} />
    ${kind ? html`<${Watched} key=${`${kind}=${name}`} kind=${kind} name=${name} params=${route.params} />` : html`<div class="coordination"><${Feed} feed=${null} /></div>`}
  `;
}

/**
 * A project, role or stream: its feed and board. One with no Wires says "no such …"
 * instead of a live, empty feed and an all-zero board, and is followed until its first.
 */
function Watched({ kind, name, params }) {
  const feed = feedOf(kind, name);
  const [exists, seen] = useExists(kind, feed);
  if (exists === 'pending') return html`<p class="muted">looking for ${kind} “${name}”…</p>`;
  // Watching one task's stream: the board shows that task only. The board comes
  // before the feed (up to 500 rows of proof links) in the tab order.
  const only = kind === 'stream' ? (taskOf(name)?.taskId ?? null) : null;
  return html`
    ${
      exists === false &&
      html`<p id="unknown" class="notice" role="alert">
        no such ${kind} “${name}”: it has no Wires yet. This page shows it from its first.
      </p>`
    }
    <div class="coordination">
      ${
        exists !== false &&
        html`<${Board}
          query=${feed.query}
          project=${kind === 'project' ? feed.stream : null}
          only=${only}
          params=${params}
        />`
      }
      <${Feed} feed=${feed} onWires=${seen} />
    </div>
  `;
}

/** What to watch; submitting it changes the route, which (re)starts the feed. */
function Picker({ kind, name }) {
  const known = useKnownStreams();
  const [draft, setDraft] = useState({ kind, name });
  useEffect(() => setDraft({ kind, name }), [kind, name]);
  const submit = (event) => {
    event.preventDefault();
    const picked = draft.name.trim();
    if (picked) navigate(hrefOf('coordination', { [draft.kind]: picked }), { replace: true });
  };
  return html`
    <form id="pick" autocomplete="off" onSubmit=${submit}>
      <select
        id="kind"
        aria-label="feed kind"
        value=${draft.kind}
        onChange=${(e) => setDraft({ ...draft, kind: e.currentTarget.value })}
      >
        ${KINDS.map((k) => html`<option value=${k}>${k}</option>`)}
      </select>
      <input
        id="name"
        list="known-streams"
        placeholder="kv-m02  ·  developer  ·  task:t1:attempt:1"
        aria-label="feed name"
        required
        value=${draft.name}
        onInput=${(e) => setDraft({ ...draft, name: e.currentTarget.value })}
      />
      <datalist id="known-streams">
        ${known.map((id) => html`<option value=${id} />`)}
      </datalist>
      <button type="submit">Watch</button>
    </form>
  `;
}

/** Stream ids for the name field's suggestions, asked again when the token changes. */
function useKnownStreams() {
  const current = useStore(token);
  const [ids, setIds] = useState([]);
  useEffect(() => {
    let stopped = false;
    client
      .get('/v1/streams?limit=200')
      .then(({ streams }) => stopped || setIds(streams.map((s) => s.stream_id)))
      // A convenience: the read model may not exist here, or the token not read it.
      .catch(() => {});
    return () => {
      stopped = true;
    };
  }, [current]);
  return ids;
}

export const coordination = { id: 'coordination', title: 'Coordination', View: CoordinationView };
