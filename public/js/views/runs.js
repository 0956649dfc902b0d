// Seed 002's run view: a run's canon with proposals and comments inline in
// gray, `<` / `>` to seek revisions, a comment box, "request revision", the
// writer's accept / decline, and live worker progress beside it.
// Its state is in the route: `#/runs?run=<run_id>[&revision=N]`.

import { client, readFailure, whatFailed } from '../lib/api.js';
import { token } from '../lib/auth.js';
import { onReconnect } from '../lib/live-feed.js';
import { pickedView } from '../lib/picker.js';
import { hrefOf, navigate } from '../lib/router.js';
import { useStore } from '../lib/store.js';
import { html, useEffect, useState } from '../lib/ui.js';

/** The token's subject (who is looking), read from the JWT's payload. */
function subjectOf(jwt) {
  try {
    const part = (jwt ?? '').split('.')[1] ?? '';
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))).sub ?? null;
  } catch {
    return null;
  }
}

async function send(runId, message) {
  const body = {
    ...message,
    run_id: runId,
    message_id: `ui-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
  };
  const res = await client.http.request('POST', `/v1/runs/${runId}/messages`, { body });
  return res.body;
}

const RunsView = pickedView(
  { view: 'runs', title: 'Run documents', param: 'run', placeholder: 'run_id', label: 'run id' },
  (runId, params) => {
    const wanted = params.get('revision');
    return html`<${Run} runId=${runId} wanted=${wanted === null ? null : Number(wanted)} />`;
  },
);

function Run({ runId, wanted }) {
  const jwt = useStore(token);
  const me = subjectOf(jwt);
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const [verdict, setVerdict] = useState('');
  useEffect(() => {
    // Reads overlap (a seek, a live tick): only the newest one may set the view,
    // or a slow read of the old revision lands last and undoes the seek.
    let newest = true;
    const q = wanted === null ? '' : `?revision=${wanted}`;
    client.http
      .request('GET', `/v1/runs/${runId}/document${q}`)
      .then((res) => {
        if (!newest) return;
        setDoc(res.body);
        setError('');
      })
      .catch((e) => {
        // Server away: the document shown stays (the shell says since when).
        const why = newest ? readFailure(e, doc !== null) : null;
        if (why !== null) setError(why);
      });
    return () => {
      newest = false;
    };
  }, [runId, wanted, tick]);
  // Canon moves when the mailbox or the control plane does: follow the control plane live.
  useEffect(() => {
    const bump = () => setTick((t) => t + 1);
    const sub = client.subscribe(`run:${runId}`, {
      afterSeq: 0,
      onWires: bump,
      onState: onReconnect(bump),
    });
    return () => sub.close();
  }, [runId]);
  if (!doc) return html`<p class=${error ? 'na' : 'muted'}>${error || 'loading…'}</p>`;
  const seek = (r) => navigate(hrefOf('runs', { run: runId, revision: String(r) }));
  const act = async (message) => {
    let v;
    try {
      v = await send(runId, message);
    } catch (e) {
      // Said beside the document, which stays; the comment box keeps its text for a retry.
      setVerdict(`${message.type} not sent: ${whatFailed(e)}`);
      return false;
    }
    setVerdict(
      v.type === 'WriterAck'
        ? `${v.type}: ${v.outcome} at revision ${v.revision}`
        : `${v.type}: ${v.reason}`,
    );
    if (wanted !== null)
      seek(
        doc.latest_revision + (v.type === 'WriterAck' && v.revision > doc.latest_revision ? 1 : 0),
      );
    setTick((t) => t + 1);
    return true;
  };
  const isWriter = me !== null && me === doc.writer;
  return html`
    <div class="run">
      <div class="run-doc">
        <header class="title-bar">
          <button id="rev-prev" disabled=${doc.revision <= 0} onClick=${() => seek(doc.revision - 1)} aria-label="older revision">‹</button>
          <span id="rev-label" data-revision=${doc.revision}>revision ${doc.revision} of ${doc.latest_revision}</span>
          <button id="rev-next" disabled=${doc.revision >= doc.latest_revision} onClick=${() => seek(doc.revision + 1)} aria-label="newer revision">›</button>
          <strong>${doc.document.title}</strong>
        </header>
        ${doc.document.order.map(
          (id) => html`<${Section} key=${id} id=${id} section=${doc.document.sections[id]}
            proposals=${doc.proposals.filter((p) => p.section === id)} isWriter=${isWriter} act=${act} />`,
        )}
        <${Comment} sections=${doc.document.order} act=${act} />
        ${verdict ? html`<p id="verdict" class="muted">${verdict}</p>` : null}
      </div>
      <${Progress} runId=${runId} />
    </div>
  `;
}

function changeText(p) {
  const c = p.change;
  if (c.type === 'writer.append_note') return c.markdown;
  if (c.type === 'writer.mark_section_state') return `state → ${c.state}`;
  return c.ops
    .map((o) => `${o.op} ${o.path}${'value' in o ? `: ${JSON.stringify(o.value)}` : ''}`)
    .join('; ');
}

function Section({ id, section, proposals, isWriter, act }) {
  return html`
    <article class="run-section" data-section=${id}>
      <h3>${section.title} <small class="muted">${section.state}</small></h3>
      <p class="canon">${section.body}</p>
      ${section.notes.map((n, i) => html`<p key=${i} class="canon note">${n}</p>`)}
      ${proposals.map(
        (p) => html`
          <p key=${p.proposal_id} class="proposal" data-status=${p.status} style="color: gray">
            <span>${p.sender}: ${changeText(p)}</span> <small>(${p.status})</small>
            ${
              isWriter && p.status === 'open'
                ? html` <button class="accept" onClick=${() => act({ type: 'WriterAcceptProposal', proposal_id: p.proposal_id })}>accept</button>
                    <button class="decline" onClick=${() => act({ type: 'WriterDeclineProposal', proposal_id: p.proposal_id })}>decline</button>`
                : null
            }
          </p>
        `,
      )}
    </article>
  `;
}

function Comment({ sections, act }) {
  const [text, setText] = useState('');
  const [section, setSection] = useState(sections[0] ?? '');
  return html`
    <form id="comment" class="comment" onSubmit=${(e) => e.preventDefault()}>
      <select aria-label="section" value=${section} onChange=${(e) => setSection(e.currentTarget.value)}>
        ${sections.map((s) => html`<option key=${s} value=${s}>${s}</option>`)}
      </select>
      <textarea aria-label="comment" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
      <button id="send-comment" type="button" disabled=${!text}
        onClick=${() => act({ type: 'WriterAppendNote', section, markdown: text, proposal: true }).then((sent) => sent && setText(''))}>comment</button>
      <button id="request-revision" type="button" disabled=${!text}
        onClick=${() => act({ type: 'WriterRequestRevision', section, markdown: text }).then((sent) => sent && setText(''))}>request revision</button>
    </form>
  `;
}

function Progress({ runId }) {
  const [lines, setLines] = useState([]);
  useEffect(() => {
    setLines([]);
    const sub = client.subscribe(`run-trace:${runId}`, {
      afterSeq: 0,
      onWires: (wires) => setLines((old) => [...old, ...wires].slice(-200)),
    });
    return () => sub.close();
  }, [runId]);
  return html`
    <aside id="progress" class="run-progress" data-count=${lines.length}>
      <h3>Worker progress</h3>
      <ol>${lines.map((w) => html`<li key=${w.stream_seq}>${w.sender}: ${w.payload.message ?? w.type}</li>`)}</ol>
    </aside>
  `;
}

export const runs = { id: 'runs', title: 'Runs', View: RunsView };
