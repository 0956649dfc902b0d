// The task board and the agent list, from the read models (GET /v1/tasks,
// /v1/agents), read every 2 s. An endpoint this deployment lacks shows "not
// available" and is asked again only every 15 s; while a rebuild runs (or
// after one failed) a notice names the read models not kept up to date.

import { useNow, usePoll } from '../../lib/poll.js';
import { html } from '../../lib/ui.js';

const COLUMNS = [
  ['available', ['available', 'new']],
  ['claimed', ['claimed']],
  ['in progress', ['started']],
  ['blocked', ['blocked']],
  ['complete', ['complete']],
  ['ended', ['released', 'expired', 'revoked']],
];

/** @param {{ query: string }} props the feed's filter, e.g. "correlation_id=project%3Akv" */
export function Board({ query }) {
  const answers = usePoll([
    `/v1/tasks?limit=200${query ? `&${query}` : ''}`,
    '/v1/agents?limit=200',
  ]);
  const [tasks, agents] = answers ?? [];
  const stale = (tasks?.ok && tasks.stale) || (agents?.ok && agents.stale) || null;
  return html`
    <section id="tasks" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <${StaleNotice} models=${stale} />
      <div id="task-board" class="board">
        ${tasks && (tasks.ok ? html`<${Columns} tasks=${tasks.body?.tasks ?? []} />` : html`<p class="na">${tasks.reason}</p>`)}
      </div>
    </section>
    <section id="agents" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <div id="agent-list">
        ${agents && (agents.ok ? html`<${Agents} agents=${agents.body?.agents ?? []} />` : html`<p class="na">${agents.reason}</p>`)}
      </div>
    </section>
  `;
}

/** Read models not kept live (a rebuild runs, or failed): the board may show old rows. */
function StaleNotice({ models }) {
  return html`
    <p id="projection-notice" class="notice" role="status" hidden=${!models} data-models=${models ?? ''}>
      ${models ? `Read models not kept up to date (${models.split(',').join(', ')}): a rebuild is running or failed, so the board shows their last rows.` : ''}
    </p>
  `;
}

function Columns({ tasks }) {
  const now = useNow(1000);
  return COLUMNS.map(([title, statuses]) => {
    const cards = tasks.filter((t) => statuses.includes(t.status));
    return html`
      <div class="column">
        <h3>${title} (${cards.length})</h3>
        ${cards.map((t) => html`<${TaskCard} key=${`${t.task_id}#${t.attempt}`} task=${t} now=${now} />`)}
      </div>
    `;
  });
}

function TaskCard({ task: t, now }) {
  const holding = t.lease_expires_at && (t.status === 'claimed' || t.status === 'started');
  const left = holding ? Math.round((Date.parse(t.lease_expires_at) - now) / 1000) : 0;
  return html`
    <div class="card" data-status=${t.status}>
      <div>${t.task_id} #${t.attempt}</div>
      ${t.role && html`<div class="muted">${t.role}</div>`}
      ${t.claimed_by && html`<div class="holder">${t.claimed_by}</div>`}
      ${
        holding &&
        html`<div class=${left < 15 ? 'lease expiring' : 'lease'} data-expires=${t.lease_expires_at}>
        ${left > 0 ? `lease ${left}s` : 'lease expired'}
      </div>`
      }
    </div>
  `;
}

function Agents({ agents }) {
  const now = useNow(5000);
  if (agents.length === 0) return html`<p class="muted">no agents yet</p>`;
  return agents.map((a) => {
    const capacity =
      a.max_units == null ? 'capacity ?' : `${a.available_units ?? '?'}/${a.max_units} units free`;
    const beat = a.last_heartbeat_at ? `beat ${ago(a.last_heartbeat_at, now)}` : 'no heartbeat';
    return html`
      <div class=${a.stale ? 'agent stale' : 'agent'} key=${a.agent_id}>
        <span>${a.agent_id}${a.role ? ` · ${a.role}` : ''}</span>
        <span class="capacity">${capacity} · ${a.status} · ${beat}</span>
      </div>
    `;
  });
}

function ago(iso, now) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 90 ? `${s}s ago` : `${Math.round(s / 60)}m ago`;
}
