// Every stream the read model knows (GET /v1/streams): its kind, status, last
// seq and event. A stream's id opens it live in the coordination view.

import { usePoll } from '../lib/poll.js';
import { hrefOf } from '../lib/router.js';
import { Clock } from '../lib/time.js';
import { answered, html } from '../lib/ui.js';

function StreamsView() {
  const [answer] = usePoll(['/v1/streams?limit=200'], { everyMs: 5_000 }) ?? [];
  return html`
    <section id="streams" aria-labelledby="streams-title">
      <h2 id="streams-title">Streams</h2>
      ${answered(answer, (body) => html`<${StreamTable} streams=${body?.streams ?? []} />`)}
    </section>
  `;
}

function StreamTable({ streams }) {
  if (streams.length === 0) return html`<p class="muted">no streams yet</p>`;
  return html`
    <div class="table-wrap">
      <table id="stream-list">
        <thead>
          <tr><th>stream</th><th>kind</th><th>status</th><th>last seq</th><th>last event</th><th>at</th></tr>
        </thead>
        <tbody>
          ${streams.map(
            (s) => html`
              <tr key=${s.stream_id} data-stream-id=${s.stream_id}>
                <td><a href=${hrefOf('coordination', { stream: s.stream_id })}>${s.stream_id}</a></td>
                <td>${s.stream_type}</td>
                <td>${s.status}</td>
                <td class="seq">#${s.last_seq}</td>
                <td class="type">${s.last_event_type}</td>
                <td class="time"><${Clock} iso=${s.last_event_at} /></td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </div>
  `;
}

export const streams = { id: 'streams', title: 'Streams', View: StreamsView };
