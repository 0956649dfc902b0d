// The agents: capacity, the tasks each holds (from the task read model, which
// knows every live lease), and health. The API calls an agent stale when its
// own stream has been silent; one that keeps renewing a task lease (the SDK's
// `claim` heartbeats the task stream, not the agent's) is alive, and shown so.

import { hrefOf } from '../../lib/router.js';
import { Ago, leaseLeft } from '../../lib/time.js';
import { html } from '../../lib/ui.js';
import { taskHref } from './task-card.js';

const HOLDING = ['claimed', 'started'];

/** The attempts `agentId` holds a lease on. */
export function heldBy(tasks, agentId) {
  return tasks.filter((t) => t.claimed_by === agentId && HOLDING.includes(t.status));
}

/**
 * Health in words: `running`, `stale` (no sign of life), or `stopped`; an
 * agent whose lease on a task has not lapsed has renewed it (or claimed it)
 * within the lease's length, so it is not stale whatever its own stream says.
 */
export function healthOf(agent, held, now) {
  if (agent.status === 'stopped') return { word: 'stopped', renewing: null };
  const renewing = held.find((t) => t.lease_expires_at && Date.parse(t.lease_expires_at) > now);
  if (agent.stale && !renewing) return { word: 'stale', renewing: null };
  return { word: agent.status === 'unknown' ? 'unknown' : 'running', renewing };
}

export function Agents({ agents, tasks, now, params }) {
  if (agents.length === 0) return html`<p class="muted">no agents yet</p>`;
  return agents.map((a) => {
    const held = heldBy(tasks, a.agent_id);
    const health = healthOf(a, held, now);
    const capacity =
      a.max_units == null ? 'capacity ?' : `${a.available_units ?? '?'}/${a.max_units} units free`;
    const renewing = health.renewing;
    const sign = renewing?.last_heartbeat_at
      ? html`lease renewed <${Ago} iso=${renewing.last_heartbeat_at} now=${now} />`
      : renewing
        ? `lease ${leaseLeft(renewing.lease_expires_at, renewing.lease_ms, now).text}`
        : a.last_heartbeat_at
          ? html`beat <${Ago} iso=${a.last_heartbeat_at} now=${now} />`
          : 'no heartbeat';
    return html`
      <div class="agent" data-health=${health.word} data-agent-id=${a.agent_id} key=${a.agent_id}>
        <div class="agent-head">
          <a href=${hrefOf('coordination', params, ['agent', a.agent_id])}>${a.agent_id}</a>
          ${a.role ? html`<span class="muted"> · ${a.role}</span>` : ''}
          <span class="health" data-health=${health.word}>${health.word}</span>
        </div>
        <div class="capacity">${capacity} · ${sign}</div>
        <div class="holds">
          ${
            held.length === 0
              ? html`<span class="muted">holds no task</span>`
              : html`holds ${held.map(
                  (t, i) =>
                    html`${i ? ', ' : ''}<a class="held" href=${taskHref(t.task_id, params)}>${t.task_id}</a>`,
                )}`
          }
        </div>
      </div>
    `;
  });
}
