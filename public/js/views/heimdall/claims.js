// Seed 001's surface claims view: the live claims of a workspace (holder,
// globs, task, mode, expiry with a countdown) and the latest refusals of the
// collision gate (who asked, for what, and the claim that holds it), redrawn
// whenever a Wire lands on `surfaces:<ws>` (a claim, renewal, release,
// expiry or refusal).

import { useNow } from '../../lib/poll.js';
import { html } from '../../lib/ui.js';
import { basePath, Panel, useLiveReads, WorkspacePicker } from './live.js';

function ClaimsView({ route }) {
  const ws = route.params.get('ws') ?? '';
  return html`
    <section id="claims" aria-labelledby="claims-title">
      <h2 id="claims-title">Surface claims${ws ? html` <code>${ws}</code>` : null}</h2>
      <${WorkspacePicker} view="claims" kind="surfaces" ws=${ws} />
      ${ws ? html`<${Claims} key=${ws} ws=${ws} />` : null}
    </section>
  `;
}

function Claims({ ws }) {
  const base = basePath(ws);
  const answers = useLiveReads([`surfaces:${ws}`], [`${base}/claims`, `${base}/claims/refusals`]);
  const [claims, refusals] = answers ?? [];
  return html`
    <div class="claims">
      <${Panel} id="claims-live" title="Live claims" answer=${claims}
        draw=${(b) => html`<${ClaimTable} claims=${b.claims} />`} />
      <${Panel} id="claims-refused" title="Refusals" answer=${refusals}
        draw=${(b) => html`<${Refusals} refusals=${b.refusals} refused=${b.refused} />`} />
    </div>
  `;
}

/** "in 29 min", "in 40 s", "expired". */
function countdown(iso, now) {
  const ms = Date.parse(iso) - now;
  if (!(ms > 0)) return 'expired';
  return ms >= 60_000 ? `in ${Math.floor(ms / 60_000)} min` : `in ${Math.ceil(ms / 1000)} s`;
}

function ClaimTable({ claims }) {
  const now = useNow(1000);
  if (claims.length === 0) return html`<p class="muted">no live claims</p>`;
  return html`
    <div class="table-wrap"><table>
      <thead>
        <tr><th>holder</th><th>globs</th><th>task</th><th>mode</th><th>expires</th></tr>
      </thead>
      <tbody>
        ${claims.map(
          (c) => html`<tr key=${c.claim_id} data-claim=${c.claim_id}>
            <td class="holder">${c.haid}</td>
            <td class="globs">${c.surfaces.map((g) => html`<code key=${g}>${g}</code> `)}</td>
            <td class="task">${c.task}</td>
            <td class="mode">${c.mode}</td>
            <td class="expiry" data-expires=${c.expires_at} title=${c.expires_at}>
              ${c.expires_at} (${countdown(c.expires_at, now)})
            </td>
          </tr>`,
        )}
      </tbody>
    </table></div>
  `;
}

function Refusals({ refusals, refused }) {
  if (refusals.length === 0) return html`<p class="muted">no refusals</p>`;
  // Newest first; the server keeps the latest few and counts them all.
  const latest = [...refusals].reverse();
  return html`
    <p class="muted">${refused} refused in all; the latest:</p>
    <div class="table-wrap"><table>
      <thead>
        <tr><th>at</th><th>asked by</th><th>globs</th><th>task</th><th>held by</th><th>holder's globs</th><th>until</th></tr>
      </thead>
      <tbody>
        ${latest.map(
          (r, i) => html`<tr key=${`${r.at}-${i}`} class="refusal" data-haid=${r.haid}>
            <td class="time">${r.at}</td>
            <td class="asker">${r.haid}</td>
            <td class="globs">${r.surfaces.map((g) => html`<code key=${g}>${g}</code> `)}</td>
            <td class="task">${r.task}</td>
            <td class="holder">${r.holder} <small class="muted">(${r.holder_task})</small></td>
            <td class="holder-globs">${r.holder_surfaces.map((g) => html`<code key=${g}>${g}</code> `)}</td>
            <td class="expiry">${r.holder_expires_at}</td>
          </tr>`,
        )}
      </tbody>
    </table></div>
  `;
}

export const claims = { id: 'claims', title: 'Claims', View: ClaimsView };
