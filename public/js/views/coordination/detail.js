// Drill-down pages of the coordination view: a task with its timeline across
// attempts (`#/coordination/task/<id>`), an agent with what it holds and its
// own stream (`#/coordination/agent/<id>`). The route keeps what the board
// watched, so "back" returns to it.

import { feedOf } from '../../lib/live-feed.js';
import { useNow, usePoll } from '../../lib/poll.js';
import { hrefOf } from '../../lib/router.js';
import { Ago } from '../../lib/time.js';
import { html } from '../../lib/ui.js';
import { healthOf, heldBy } from './agents.js';
import { useExists } from './exists.js';
import { useLogs } from './logs.js';
import { projectGraph, waitsFor } from './project.js';
import { TaskCard, taskHref } from './task-card.js';
import { Timeline } from './timeline.js';

const enc = encodeURIComponent;

function Back({ params }) {
  return html`<a class="back" href=${hrefOf('coordination', params)}>← back to the board</a>`;
}

/** The project the board watched, folded: titles and dependencies. */
function useGraph(params) {
  const name = params.get('project');
  const stream = name ? (name.includes(':') ? name : `project:${name}`) : null;
  const { logs } = useLogs(stream ? [{ id: stream }] : []);
  return projectGraph((stream && logs.get(stream)) || []);
}

export function TaskDetail({ taskId, params }) {
  // A task still waiting on a dependency has no attempt: ask its first stream
  // (200, empty) before the read model, whose 404 the browser would log.
  const [started] = useExists('stream', feedOf('stream', `task:${taskId}:attempt:1`));
  const [answer] = usePoll(started === true ? [`/v1/tasks/${enc(taskId)}`] : []) ?? [];
  const attempts = answer?.ok ? (answer.body?.attempts ?? []) : [];
  const { logs } = useLogs(attempts.map((a) => ({ id: a.stream_id, seq: a.last_seq })));
  const graph = useGraph(params);
  const now = useNow(1000);
  const planned = graph.tasks.get(taskId);
  const entries = attempts.flatMap((a) =>
    (logs.get(a.stream_id) ?? []).map((wire) => ({ wire, attempt: a.attempt, status: a.status })),
  );
  const waits = waitsFor(graph, taskId);
  return html`
    <section id="task-detail" aria-labelledby="task-title" data-task-id=${taskId}>
      <${Back} params=${params} />
      <h2 id="task-title" class="ids">${planned?.title ? `${planned.title} · ` : ''}${taskId}</h2>
      ${waits.length > 0 && html`<p class="waits">waits for ${waits.join(', ')}</p>`}
      ${started === false && html`<p class="na">no attempt of this task yet</p>`}
      ${answer && !answer.ok && html`<p class="na">${answer.reason}</p>`}
      <div class="attempts board">
        ${attempts.map(
          (a) =>
            html`<${TaskCard} key=${a.attempt} task=${a} title=${planned?.title ?? null} blocking=${0} now=${now} params=${params} />`,
        )}
      </div>
      <h3>Timeline across ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}</h3>
      <${Timeline} id="task-timeline" entries=${entries} graph=${graph} />
    </section>
  `;
}

export function AgentDetail({ agentId, params }) {
  const [agent, tasks] =
    usePoll([`/v1/agents/${enc(agentId)}`, `/v1/tasks?claimed_by=${enc(agentId)}&limit=200`]) ?? [];
  const row = agent?.ok ? agent.body : null;
  const rows = tasks?.ok ? (tasks.body?.tasks ?? []) : [];
  const { logs } = useLogs(row ? [{ id: row.stream_id, seq: row.last_seq }] : []);
  const now = useNow(1000);
  const held = heldBy(rows, agentId);
  const health = row ? healthOf(row, held, now) : null;
  const entries = (row ? (logs.get(row.stream_id) ?? []) : []).map((wire) => ({ wire }));
  return html`
    <section id="agent-detail" aria-labelledby="agent-title" data-agent-id=${agentId}>
      <${Back} params=${params} />
      <h2 id="agent-title" class="ids">${agentId}</h2>
      ${agent && !agent.ok && html`<p class="na">${agent.missing ? `no such agent "${agentId}"` : agent.reason}</p>`}
      ${
        row &&
        html`<dl class="facts">
          <dt>health</dt><dd><span class="health" data-health=${health.word}>${health.word}</span></dd>
          <dt>role</dt><dd>${row.role ?? '–'}</dd>
          <dt>capacity</dt><dd>${row.available_units ?? '?'} of ${row.max_units ?? '?'} units free</dd>
          <dt>last seen</dt><dd><${Ago} iso=${row.last_seen_at} now=${now} /></dd>
          <dt>holds</dt><dd id="agent-holds">${held.length ? held.map((t, i) => html`${i ? ', ' : ''}<a href=${taskHref(t.task_id, params)}>${t.task_id}</a>`) : 'no task'}</dd>
        </dl>`
      }
      <h3>Tasks it claimed (${rows.length})</h3>
      <ul id="agent-tasks">
        ${rows.map(
          (t) =>
            html`<li key=${t.stream_id} data-status=${t.status}><a href=${taskHref(t.task_id, params)}>${t.task_id} #${t.attempt}</a> · ${t.status}</li>`,
        )}
      </ul>
      <h3>Its stream</h3>
      <${Timeline} id="agent-timeline" entries=${entries} />
    </section>
  `;
}
