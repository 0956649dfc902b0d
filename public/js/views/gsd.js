// Seed 004's GSD view: a project's event feed in the seed's vocabulary
// (`task:completed 01-02 …`), file claims, dependency status per plan, the
// decision log, and checkpoints awaiting a person with approve / reject —
// live: the view follows the project's stream (gsd:<project>) and re-reads
// the events view and the project state when a Wire arrives.
// Its state is in the route: `#/gsd?project=<project_id>`.

import { ProjectClient } from '/client.js';
import { client, readFailure, whatFailed } from '../lib/api.js';
import { useStreamTick } from '../lib/live-feed.js';
import { pickedView } from '../lib/picker.js';
import { html, useEffect, useState } from '../lib/ui.js';

const FEED_MAX = 200;
const NAMED = new Set(['id', 'type', 'plan', 'task', 'agent', 'timestamp']);

const GsdView = pickedView(
  {
    view: 'gsd',
    title: 'GSD project events',
    param: 'project',
    placeholder: 'project_id',
    label: 'project id',
  },
  (project) => html`<${Project} key=${project} id=${project} />`,
);

function Project({ id }) {
  const moved = useStreamTick(`gsd:${id}`);
  const [answered, setTick] = useState(0);
  const tick = moved + answered;
  const [events, setEvents] = useState([]);
  const [state, setState] = useState(null);
  const [error, setError] = useState('');
  // A failed approve / reject, said beside the checkpoints.
  const [refused, setRefused] = useState('');
  const p = new ProjectClient(client, id);
  useEffect(() => {
    let live = true;
    Promise.all([p.events(), p.state()])
      .then(([view, s]) => {
        if (!live) return;
        setEvents(view.events.slice(-FEED_MAX));
        setState(s);
        setError('');
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
  if (!state) return html`<p class=${error ? 'na' : 'muted'}>${error || 'loading…'}</p>`;
  const answer = (checkpoint, type, comment) =>
    p
      .emit({
        type,
        plan: checkpoint.plan,
        task: checkpoint.task,
        ...(comment ? { comment } : {}),
        timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      })
      .then(() => {
        setRefused('');
        setTick((t) => t + 1);
      })
      .catch((e) => setRefused(`${type} not sent: ${whatFailed(e)}`));
  return html`
    <div class="gsd" data-last-event=${state.lastEventId}>
      ${error ? html`<p class="na" id="gsd-error">${error}</p>` : null}
      ${refused ? html`<p class="na" id="gsd-refused" role="alert">${refused}</p>` : null}
      <${Checkpoints} checkpoints=${state.checkpoints} answer=${answer} />
      <${Plans} plans=${state.plans} />
      <${Claims} claims=${state.claims} />
      <${Decisions} decisions=${state.decisions} />
      <${Feed} events=${events} />
    </div>
  `;
}

/** One event as the seed writes it: type, plan, task, then its own fields. */
function eventText(e) {
  const rest = Object.entries(e).filter(([k]) => !NAMED.has(k));
  return [
    e.plan ?? '',
    e.task === undefined ? '' : `task ${e.task}`,
    e.agent ?? '',
    rest.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', '),
  ]
    .filter((s) => s !== '')
    .join(' · ');
}

function Feed({ events }) {
  return html`
    <article id="gsd-feed" data-count=${events.length}>
      <h3>Events</h3>
      <ol class="gsd-feed">
        ${events.map(
          (e, i) => html`<li key=${i} data-type=${e.type}>
            <code>#${String(e.id)}</code> <strong>${e.type}</strong> ${eventText(e)}
            <small class="muted"> ${e.timestamp}</small>
          </li>`,
        )}
      </ol>
    </article>
  `;
}

function Checkpoints({ checkpoints, answer }) {
  const [comment, setComment] = useState('');
  return html`
    <article id="gsd-checkpoints">
      <h3>Checkpoints</h3>
      ${checkpoints.length === 0 ? html`<p class="muted">none</p>` : null}
      <ul>
        ${checkpoints.map(
          (
            c,
          ) => html`<li key=${`${c.plan}#${c.task}`} class="checkpoint" data-plan=${c.plan} data-status=${c.status}>
            <strong>${c.plan}</strong> task ${c.task} · ${c.checkpointType ?? ''} · ${
              c.status === 'awaiting'
                ? html`awaiting ${c.awaiting ?? 'a person'}
                    <input aria-label="comment" value=${comment} onInput=${(e) => setComment(e.currentTarget.value)} />
                    <button class="approve" onClick=${() => answer(c, 'checkpoint:approved', comment)}>approve</button>
                    <button class="reject" onClick=${() => answer(c, 'checkpoint:rejected', comment)}>reject</button>`
                : html`<span class="answer">${c.status} by ${c.answeredBy}${c.comment ? `: ${c.comment}` : ''}</span>`
            }
          </li>`,
        )}
      </ul>
    </article>
  `;
}

function Plans({ plans }) {
  const entries = Object.entries(plans);
  return html`
    <article id="gsd-plans">
      <h3>Dependencies</h3>
      ${entries.length === 0 ? html`<p class="muted">no plan waits on anything</p>` : null}
      <table>
        <tbody>
          ${entries.map(
            ([plan, d]) => html`<tr key=${plan} data-plan=${plan} data-status=${d.status}>
              <td>${plan}</td><td class="status">${d.status}</td>
              <td>${d.waitsOn.map((req) => html`<span key=${req} class=${d.satisfied[req] ? 'done' : 'open'}>${req}${d.satisfied[req] ? ' ✓' : ''} </span>`)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </article>
  `;
}

function Claims({ claims }) {
  return html`
    <article id="gsd-claims">
      <h3>File claims</h3>
      ${claims.length === 0 ? html`<p class="muted">none</p>` : null}
      <ul>
        ${claims.map(
          (c) =>
            html`<li key=${c.path} data-path=${c.path}><code>${c.path}</code> ${c.holder}${c.plan ? ` (plan ${c.plan})` : ''}</li>`,
        )}
      </ul>
    </article>
  `;
}

function Decisions({ decisions }) {
  return html`
    <article id="gsd-decisions">
      <h3>Decisions</h3>
      ${decisions.length === 0 ? html`<p class="muted">none</p>` : null}
      <ol>
        ${decisions.map(
          (
            d,
          ) => html`<li key=${d.eventId}><strong>${d.decision}</strong>${d.rationale ? ` — ${d.rationale}` : ''}
            <small class="muted"> ${d.madeBy ?? ''}${d.affects ? ` · affects ${d.affects.join(', ')}` : ''}</small></li>`,
        )}
      </ol>
    </article>
  `;
}

export const gsd = { id: 'gsd', title: 'GSD', View: GsdView };
