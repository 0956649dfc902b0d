// Seed 001's workspace view: the symbol table, the blackboard, the capsule
// dependency graph, the token ledger per role (v1 baseline against measured)
// and the audit tail, redrawn whenever a Wire lands on `workspace:<ws>` or
// `surfaces:<ws>` (the audit tail covers both).

import { load } from '../../lib/api.js';
import { html } from '../../lib/ui.js';
import { CapsuleGraph } from './capsule-graph.js';
import { basePath, loadText, Panel, useLiveReads, WorkspacePicker } from './live.js';

const AUDIT_LINES = 20;

/**
 * The ledger report, with each baselined role's delta line as the API words
 * it (`orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)`).
 */
async function loadLedger(path) {
  const report = await load(path);
  if (!report.ok) return report;
  const roles = report.body?.roles ?? [];
  const base = path.slice(0, -'/report'.length);
  const deltas = await Promise.all(
    roles.map((r) =>
      r.baseline === null ? null : load(`${base}/delta?role=${encodeURIComponent(r.role)}`),
    ),
  );
  return {
    ...report,
    body: roles.map((r, i) => ({ ...r, delta: deltas[i]?.ok ? deltas[i].body : null })),
  };
}

const read = (path) =>
  path.endsWith('/ledger/report')
    ? loadLedger(path)
    : path.includes('/log?')
      ? loadText(path)
      : load(path);

function WorkspaceView({ route }) {
  const ws = route.params.get('ws') ?? '';
  return html`
    <section id="workspace" aria-labelledby="workspace-title">
      <h2 id="workspace-title">Workspace${ws ? html` <code>${ws}</code>` : null}</h2>
      <${WorkspacePicker} view="workspace" kind="workspace" ws=${ws} />
      ${ws ? html`<${Workspace} key=${ws} ws=${ws} />` : null}
    </section>
  `;
}

function Workspace({ ws }) {
  const base = basePath(ws);
  const answers = useLiveReads(
    [`workspace:${ws}`, `surfaces:${ws}`],
    [
      `${base}/symbols`,
      `${base}/blackboard`,
      `${base}/capsules`,
      `${base}/ledger/report`,
      `${base}/log?n=${AUDIT_LINES}`,
    ],
    read,
  );
  const [symbols, blackboard, capsules, ledger, audit] = answers ?? [];
  return html`
    <div class="workspace">
      <${Panel} id="ws-symbols" title="Symbols" answer=${symbols}
        draw=${(b) => html`<${Pairs} rows=${b.symbols} name="id" what="symbols" />`} />
      <${Panel} id="ws-blackboard" title="Blackboard" answer=${blackboard}
        draw=${(b) => html`<${Pairs} rows=${b.entries} name="key" what="facts" />`} />
      <${Panel} id="ws-capsules" title="Capsules" answer=${capsules}
        draw=${(b) => html`<${CapsuleGraph} capsules=${b.capsules} />`} />
      <${Panel} id="ws-ledger" title="Token ledger" answer=${ledger}
        draw=${(roles) => html`<${Ledger} roles=${roles} />`} />
      <${Panel} id="ws-audit" title="Audit log" answer=${audit}
        draw=${(text) => html`<${Audit} text=${text} />`} />
    </div>
  `;
}

/** Symbols (`id`) or blackboard facts (`key`) as a two-column table. */
function Pairs({ rows, name, what }) {
  if (rows.length === 0) return html`<p class="muted">no ${what} yet</p>`;
  return html`
    <div class="table-wrap"><table>
      <thead><tr><th>${name}</th><th>value</th></tr></thead>
      <tbody>
        ${rows.map(
          (r) => html`<tr key=${r[name]} data-name=${r[name]}>
            <td class="name">${r[name]}</td><td class="value">${r.value}</td>
          </tr>`,
        )}
      </tbody>
    </table></div>
  `;
}

function Ledger({ roles }) {
  if (roles.length === 0) return html`<p class="muted">nothing logged yet</p>`;
  return html`
    <div class="table-wrap"><table>
      <thead>
        <tr><th>role</th><th>v1 baseline</th><th>measured</th><th>lines</th><th>delta</th></tr>
      </thead>
      <tbody>
        ${roles.map(
          (r) => html`<tr key=${r.role} data-role=${r.role}>
            <td>${r.role}</td>
            <td class="num baseline">${r.baseline ?? '—'}</td>
            <td class="num measured">${r.tokens}</td>
            <td class="num">${r.lines}</td>
            <td class="num delta" title=${r.delta?.line ?? 'no v1 baseline'}>
              ${r.delta ? `${r.delta.delta_percent > 0 ? '+' : ''}${r.delta.delta_percent}%` : '—'}
            </td>
          </tr>`,
        )}
      </tbody>
    </table></div>
    <ul class="delta-lines">
      ${roles.filter((r) => r.delta).map((r) => html`<li key=${r.role}><code>${r.delta.line}</code></li>`)}
    </ul>
  `;
}

/** The tail of protocol.log: tab-separated timestamp, mechanism, action, subject. */
function Audit({ text }) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  if (lines.length === 0) return html`<p class="muted">no actions yet</p>`;
  return html`
    <div class="table-wrap"><table class="audit">
      <tbody>
        ${lines.map(
          (line, i) =>
            html`<tr key=${i}>${line.split('\t').map((cell, j) => html`<td key=${j}>${cell}</td>`)}</tr>`,
        )}
      </tbody>
    </table></div>
  `;
}

export const workspace = { id: 'workspace', title: 'Workspace', View: WorkspaceView };
