// The HCS topics Wires are anchored to (GET /v1/topics): how many of each
// topic's Wires are on HCS and projected into D1, and the last error if the
// network or the projection is failing.

import { usePoll } from '../lib/poll.js';
import { answered, html } from '../lib/ui.js';

function AnchoringView() {
  const [answer] = usePoll(['/v1/topics'], { everyMs: 3_000 }) ?? [];
  return html`
    <section id="anchoring" aria-labelledby="anchoring-title">
      <h2 id="anchoring-title">
        HCS topics ${answer?.ok ? html`<span class="muted">${answer.body.network}</span>` : ''}
      </h2>
      ${answered(answer, (body) => html`<${TopicTable} topics=${body?.topics ?? []} />`)}
    </section>
  `;
}

function TopicTable({ topics }) {
  if (topics.length === 0) return html`<p class="muted">no topics yet: nothing was appended</p>`;
  return html`
    <div class="table-wrap">
      <table id="topic-list">
        <thead>
          <tr><th>topic</th><th>HCS id</th><th>Wires</th><th>anchored</th><th>projected</th><th>last error</th></tr>
        </thead>
        <tbody>
          ${topics.map(
            (t) => html`
              <tr key=${t.name} data-topic=${t.name} data-pending=${t.total - t.anchored}>
                <td>${t.name}</td>
                <td>${t.hcs_topic_id ?? '–'}</td>
                <td class="num">${t.total}</td>
                <td class="num">${t.anchored}</td>
                <td class="num">${t.projected}</td>
                <td class=${t.last_error || t.projection_error ? 'error' : 'muted'}>
                  ${t.last_error ?? t.projection_error ?? 'none'}
                </td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </div>
  `;
}

export const anchoring = { id: 'anchoring', title: 'Anchoring', View: AnchoringView };
