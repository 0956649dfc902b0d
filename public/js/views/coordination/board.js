// The task board and the agent list, from the read models (GET /v1/tasks,
// /v1/agents), read every 2 s. An endpoint this deployment lacks shows "not
// available" and is asked again only every 15 s; while a rebuild runs (or
// after one failed) a notice names the read models not kept up to date.
// Watching a project adds its plan (the project stream's task graph: titles,
// and the tasks still waiting on a dependency) and its activity in words.

import { useNow, usePoll } from '../../lib/poll.js';
import { html } from '../../lib/ui.js';
import { Activity, activityOf } from './activity.js';
import { Agents } from './agents.js';
import { useLogs } from './logs.js';
import { projectGraph, waitingTasks, waitsFor } from './project.js';
import { TaskCard, WaitingCard } from './task-card.js';

const COLUMNS = [
  ['waiting', []],
  ['available', ['available', 'new', 'pending']],
  ['claimed', ['claimed']],
  ['in progress', ['started']],
  ['blocked', ['blocked']],
  ['complete', ['complete']],
  ['ended', ['released', 'expired', 'revoked']],
];

/**
 * @param {{ query: string, project: string | null, params: URLSearchParams }} props
 * `query` is the feed's filter ("correlation_id=project%3Akv"); `project` its stream;
 * `only` a task id when one task's stream is watched.
 */
export function Board({ query, project, only = null, params }) {
  const answers = usePoll([
    `/v1/tasks?limit=200${query ? `&${query}` : ''}`,
    '/v1/agents?limit=200',
  ]);
  const [tasks, agents] = answers ?? [];
  const all = tasks?.ok ? (tasks.body?.tasks ?? []) : [];
  const rows = only ? all.filter((t) => t.task_id === only) : all;
  const { logs } = useLogs([
    ...(project ? [{ id: project }] : []),
    ...rows.map((t) => ({ id: t.stream_id, seq: t.last_seq })),
  ]);
  const graph = projectGraph((project && logs.get(project)) || []);
  const now = useNow(1000);
  const stale = (tasks?.ok && tasks.stale) || (agents?.ok && agents.stale) || null;
  return html`
    ${project && html`<${Activity} lines=${activityOf(logs, graph)} now=${now} params=${params} />`}
    <section id="tasks" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <${StaleNotice} models=${stale} />
      <div id="task-board" class="board">
        ${tasks && (tasks.ok ? html`<${Columns} tasks=${rows} graph=${graph} logs=${logs} now=${now} params=${params} />` : html`<p class="na">${tasks.reason}</p>`)}
      </div>
    </section>
    <section id="agents" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <div id="agent-list">
        ${agents && (agents.ok ? html`<${Agents} agents=${agents.body?.agents ?? []} tasks=${all} now=${now} params=${params} />` : html`<p class="na">${agents.reason}</p>`)}
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

/** Blocking review concerns raised on each task stream. */
function blockingOf(logs, streamId) {
  const wires = logs.get(streamId) ?? [];
  return wires.filter((w) => w.type === 'review.concern' && w.payload?.severity === 'blocking')
    .length;
}

function Columns({ tasks, graph, logs, now, params }) {
  const waiting = waitingTasks(graph, tasks);
  return COLUMNS.map(([title, statuses]) => {
    const cards = tasks.filter((t) => statuses.includes(t.status));
    const count = title === 'waiting' ? waiting.length : cards.length;
    if (title === 'waiting' && count === 0) return null;
    return html`
      <div class="column" data-column=${title}>
        <h3>${title} (${count})</h3>
        ${
          title === 'waiting'
            ? waiting.map(
                (t) =>
                  html`<${WaitingCard} key=${t.id} task=${t} waits=${waitsFor(graph, t.id)} params=${params} />`,
              )
            : cards.map(
                (t) => html`<${TaskCard}
                  key=${`${t.task_id}#${t.attempt}`}
                  task=${t}
                  title=${graph.tasks.get(t.task_id)?.title ?? null}
                  blocking=${blockingOf(logs, t.stream_id)}
                  now=${now}
                  params=${params}
                />`,
              )
        }
      </div>
    `;
  });
}
