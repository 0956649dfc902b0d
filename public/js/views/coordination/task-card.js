// One task on the board: its title (from the project's task.created), who
// holds it and for how long, why it is blocked, its plan, artifacts and
// contracts, and how it ended. A card is a link to the task's detail.

import { hrefOf } from '../../lib/router.js';
import { leaseLeft } from '../../lib/time.js';
import { html } from '../../lib/ui.js';

const ENDED = {
  released: 'released by its holder',
  expired: 'lease expired',
  revoked: 'lease revoked',
};

/** Where a card leads: the task's detail, keeping what the view watches. */
export function taskHref(taskId, params) {
  return hrefOf('coordination', params, ['task', taskId]);
}

/**
 * @param {{ task: any, title: string | null, blocking: number, now: number,
 *   params: URLSearchParams }} props
 */
export function TaskCard({ task: t, title, blocking, now, params }) {
  const holding = t.lease_expires_at && (t.status === 'claimed' || t.status === 'started');
  const lease = holding ? leaseLeft(t.lease_expires_at, t.lease_ms, now) : null;
  const artifacts = Array.isArray(t.artifacts) ? t.artifacts : [];
  const contracts = Array.isArray(t.contracts) ? t.contracts : [];
  return html`
    <a
      class=${blocking ? 'card blocking' : 'card'}
      href=${taskHref(t.task_id, params)}
      data-status=${t.status}
      data-task-id=${t.task_id}
    >
      <span class="title">${title ?? t.task_id}</span>
      <span class="id muted">${t.task_id} #${t.attempt}${t.role ? ` · ${t.role}` : ''}</span>
      ${t.claimed_by && html`<span class="holder">${t.claimed_by}</span>`}
      ${
        lease &&
        html`<span class=${lease.warn ? 'lease expiring' : 'lease'} data-expires=${t.lease_expires_at}
          >${lease.text}</span
        >`
      }
      ${t.blocker && html`<span class="blocker">blocked: ${t.blocker}</span>`}
      ${ENDED[t.status] && html`<span class="ended">${ENDED[t.status]}</span>`}
      ${t.plan_ref && html`<span class="plan">plan: ${t.plan_ref}</span>`}
      ${artifacts.map(
        (a) =>
          html`<span class="artifact" data-status=${a.status}
            >${a.status === 'ready' ? 'artifact' : 'producing'} ${a.artifact_type ?? a.artifact_id}${a.artifact_ref ? `: ${a.artifact_ref}` : ''}</span
          >`,
      )}
      ${contracts.map((c) => html`<span class="contract">contract ${c} ready</span>`)}
      ${t.output_ref && html`<span class="output">output: ${t.output_ref}</span>`}
      ${
        t.concerns > 0 &&
        html`<span class=${blocking ? 'concerns blocking' : 'concerns'}
          >${blocking ? `${blocking} blocking concern${blocking > 1 ? 's' : ''}` : `${t.concerns} concern${t.concerns > 1 ? 's' : ''}`}</span
        >`
      }
    </a>
  `;
}

/** A task the project planned that waits on a dependency or gate: no attempt yet. */
export function WaitingCard({ task, waits, params }) {
  return html`
    <a class="card" href=${taskHref(task.id, params)} data-status="waiting" data-task-id=${task.id}>
      <span class="title">${task.title ?? task.id}</span>
      <span class="id muted">${task.id}${task.role ? ` · ${task.role}` : ''}</span>
      <span class="waits">
        ${waits.length ? `waits for ${waits.join(', ')}` : 'not offered yet (no dependency holds it)'}
      </span>
    </a>
  `;
}
