// A timeline of Wires (a task across its attempts, an agent's stream): each
// in words with its local time, type and sender, its payload expandable in
// full, and filters by type, sender and the attempt's status. A blocking
// review concern is marked as such, unlike an informational one.

import { Clock } from '../../lib/time.js';
import { html, useState } from '../../lib/ui.js';
import { describe } from './project.js';

/**
 * @typedef {{ wire: any, attempt?: number, status?: string }} Entry
 * @param {{ id: string, entries: Entry[], graph?: any }} props
 */
export function Timeline({ id, entries, graph }) {
  const [filter, setFilter] = useState({ type: '', sender: '', status: '' });
  const shown = entries.filter(
    (e) =>
      (!filter.type || e.wire.type === filter.type) &&
      (!filter.sender || e.wire.sender === filter.sender) &&
      (!filter.status || e.status === filter.status),
  );
  const options = (pick) => [...new Set(entries.map(pick).filter(Boolean))].sort();
  const select = (name, values) => html`
    <label>
      ${name}
      <select
        id=${`${id}-${name}`}
        value=${filter[name]}
        onChange=${(e) => setFilter({ ...filter, [name]: e.currentTarget.value })}
      >
        <option value="">all</option>
        ${values.map((v) => html`<option value=${v}>${v}</option>`)}
      </select>
    </label>
  `;
  let attempt = null;
  return html`
    <div class="filters" role="group" aria-label="filter the timeline">
      ${select(
        'type',
        options((e) => e.wire.type),
      )}
      ${select(
        'sender',
        options((e) => e.wire.sender),
      )}
      ${
        entries.some((e) => e.status)
          ? select(
              'status',
              options((e) => e.status),
            )
          : ''
      }
      <span class="muted">${shown.length} of ${entries.length}</span>
    </div>
    <ol id=${id} class="timeline">
      ${shown.map((e) => {
        const head =
          e.attempt != null && e.attempt !== attempt
            ? html`<li class="attempt-head" data-attempt=${e.attempt}>attempt ${e.attempt} · ${e.status}</li>`
            : null;
        attempt = e.attempt ?? attempt;
        return html`${head}<${Entry} key=${`${e.wire.stream_id}/${e.wire.wire_id}`} entry=${e} graph=${graph} />`;
      })}
    </ol>
  `;
}

function Entry({ entry, graph }) {
  const w = entry.wire;
  const said = describe(w, graph);
  const severity = w.type === 'review.concern' ? (w.payload?.severity ?? 'info') : undefined;
  return html`
    <li
      class="entry"
      data-type=${w.type}
      data-attempt=${entry.attempt}
      data-severity=${severity}
      data-tone=${said?.tone ?? ''}
    >
      <span class="when"><${Clock} iso=${w.received_at ?? w.ts} /></span>
      <span class="seq">#${w.stream_seq}</span>
      <span class="type">${w.type}</span>
      <span class="sender">${w.sender}</span>
      ${severity === 'blocking' ? html`<strong class="flag">blocking</strong>` : ''}
      ${said && html`<span class="what">${said.text}</span>`}
      <details class="payload">
        <summary>payload</summary>
        <pre>${JSON.stringify(w.payload ?? {}, null, 2)}</pre>
      </details>
    </li>
  `;
}
