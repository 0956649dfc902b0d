// What happened in a project, in words: the project stream (the plan,
// readiness signals) and its task streams (claims, starts, plans, blocks,
// artifacts, completions), newest first. Each line links to its task.

import { Ago } from '../../lib/time.js';
import { html } from '../../lib/ui.js';
import { taskOf } from './logs.js';
import { describe } from './project.js';
import { taskHref } from './task-card.js';

const MAX_LINES = 200;

/** Every Wire of `logs` that says something, newest first. */
export function activityOf(logs, graph) {
  const lines = [];
  for (const wires of logs.values()) {
    for (const wire of wires) {
      const said = describe(wire, graph);
      if (said) lines.push({ wire, ...said });
    }
  }
  const at = (l) => l.wire.received_at ?? l.wire.ts;
  return lines.sort((a, b) => (at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0)).slice(0, MAX_LINES);
}

export function Activity({ lines, now, params }) {
  return html`
    <section id="activity" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      ${
        lines.length === 0
          ? html`<p class="muted">nothing has happened in this project yet</p>`
          : html`<ol class="activity">
            ${lines.map((l) => {
              const task = l.wire.payload?.task_id ?? taskOf(l.wire.stream_id)?.taskId;
              return html`<li
                key=${`${l.wire.stream_id}/${l.wire.wire_id}`}
                data-type=${l.wire.type}
                data-tone=${l.tone ?? ''}
              >
                <${Ago} iso=${l.wire.received_at ?? l.wire.ts} now=${now} />
                <span class="what">${task ? html`<a href=${taskHref(task, params)}>${l.text}</a>` : l.text}</span>
                ${l.note && html`<span class="note">${l.note}</span>`}
              </li>`;
            })}
          </ol>`
      }
    </section>
  `;
}
