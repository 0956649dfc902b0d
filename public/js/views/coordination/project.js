// A project's task graph folded from its stream (task.created,
// dependency.created, gate.*, upstream.ready: the project decider's rules,
// src/modules/coordination/kinds/project-decider.ts), and each Wire of a
// project or task stream said in words for the activity list and timelines.

import { span } from '../../lib/time.js';
import { taskOf } from './logs.js';

/**
 * @typedef {{ id: string, title: string | null, role: string | null }} GraphTask
 * @typedef {{ down: string, up: string, on: string, name: string | null, satisfied: boolean }} Dep
 * @typedef {{ tasks: Map<string, GraphTask>, deps: Dep[],
 *   gates: Map<string, { open: boolean, taskIds: string[] }> }} Graph
 */

const signalKey = (up, on, name) => `${up}|${on}|${on === 'task.complete' ? '' : (name ?? '')}`;

/** @param {any[]} wires the project stream, oldest first @returns {Graph} */
export function projectGraph(wires) {
  const tasks = new Map();
  const deps = [];
  const gates = new Map();
  const signals = new Set();
  for (const w of wires) {
    const p = w.payload ?? {};
    if (w.type === 'task.created')
      tasks.set(p.task_id, { id: p.task_id, title: p.title ?? null, role: p.role ?? null });
    else if (w.type === 'dependency.created') {
      const on = p.release_on?.type ?? '';
      const name = p.release_on?.name ?? null;
      const dep = { down: p.downstream_task_id, up: p.upstream_task_id, on, name };
      deps.push({ ...dep, satisfied: signals.has(signalKey(dep.up, on, name)) });
    } else if (w.type === 'gate.opened')
      gates.set(p.gate_id, { open: true, taskIds: Array.isArray(p.task_ids) ? p.task_ids : [] });
    else if (w.type === 'gate.passed' && gates.has(p.gate_id))
      gates.set(p.gate_id, { ...gates.get(p.gate_id), open: false });
    else if (w.type === 'upstream.ready') {
      const key = signalKey(p.task_id, p.signal, p.name ?? null);
      signals.add(key);
      for (const d of deps) if (signalKey(d.up, d.on, d.name) === key) d.satisfied = true;
    }
  }
  return { tasks, deps, gates };
}

/** "contract schema-v1 of schema" / "schema to complete": what a dependency needs. */
export function needOf(dep) {
  if (dep.on === 'task.complete') return `${dep.up} to complete`;
  const what = dep.on === 'contract.ready' ? 'contract' : 'artifact';
  return `${what} ${dep.name} from ${dep.up}`;
}

/** What `taskId` still waits for: unmet dependencies and open gates, as phrases. */
export function waitsFor(graph, taskId) {
  const deps = graph.deps.filter((d) => d.down === taskId && !d.satisfied).map(needOf);
  const gates = [...graph.gates].filter(([, g]) => g.open && g.taskIds.includes(taskId));
  return [...deps, ...gates.map(([id]) => `gate ${id} to pass`)];
}

/** The tasks the project planned but whose first attempt has no stream yet. */
export function waitingTasks(graph, tasks) {
  const started = new Set(tasks.map((t) => t.task_id));
  return [...graph.tasks.values()].filter((t) => !started.has(t.id));
}

const who = (sender) => (sender ?? '').replace(/^agent:/, '');

/**
 * One Wire in words: `{ text, tone?, note? }`; `note` explains a system Wire.
 * Null for the ones an operator need not read (heartbeats, capacity bookkeeping).
 * @param {any} w @param {Graph} [graph]
 */
export function describe(w, graph) {
  const p = w.payload ?? {};
  const task = p.task_id ?? taskOf(w.stream_id)?.taskId ?? '';
  switch (w.type) {
    case 'task.created':
      return { text: `planned ${task}${p.title ? ` “${p.title}”` : ''} for ${p.role}` };
    case 'dependency.created':
      return {
        text: `${p.downstream_task_id} waits for ${needOf({ up: p.upstream_task_id, on: p.release_on?.type, name: p.release_on?.name })}`,
      };
    case 'upstream.ready': {
      const released = (graph?.deps ?? [])
        .filter(
          (d) =>
            d.up === p.task_id &&
            d.on === p.signal &&
            (d.on === 'task.complete' || d.name === p.name),
        )
        .map((d) => d.down);
      const what = p.signal === 'task.complete' ? 'completed' : `sent ${p.signal} ${p.name ?? ''}`;
      return {
        text: `${p.task_id} ${what}${released.length ? `: meets a dependency of ${released.join(', ')}` : ''}`,
        note: 'upstream.ready: the coordinator forwards a task’s readiness signal to its project, which releases the tasks waiting on it',
      };
    }
    case 'task.available':
      return {
        text: `${task} offered to ${p.role}${p.released_by ? ' (its dependencies are met)' : ''}`,
      };
    case 'task.claim':
    case 'task.claimed': {
      const lease = Date.parse(p.lease_expires_at) - Date.parse(w.ts);
      return { text: `${p.agent} claimed ${task}${lease > 0 ? ` (lease ${span(lease)})` : ''}` };
    }
    case 'task.started':
      return { text: `${who(w.sender)} started ${task}` };
    case 'task.plan.created':
      return { text: `${who(w.sender)} planned ${task}: ${p.plan_ref ?? 'plan recorded'}` };
    case 'task.blocked':
      return { text: `${task} blocked: ${p.reason}`, tone: 'bad' };
    case 'task.complete':
      return {
        text: `${who(w.sender)} completed ${task}${p.output_ref ? ` → ${p.output_ref}` : ''}`,
        tone: 'ok',
      };
    case 'task.released':
      return { text: `${who(w.sender)} released ${task}` };
    case 'task.lease.expired':
      return { text: `${task}: the lease expired (no heartbeat in time)`, tone: 'bad' };
    case 'task.lease.revoked':
      return { text: `${task}: the lease was revoked`, tone: 'bad' };
    case 'artifact.claimed':
      return {
        text: `${who(w.sender)} is producing ${p.artifact_type ?? p.artifact_id ?? 'an artifact'}`,
      };
    case 'artifact.ready':
      return { text: `artifact ${p.artifact_type} ready: ${p.artifact_ref}`, tone: 'ok' };
    case 'contract.ready':
      return { text: `contract ${p.contract} ready`, tone: 'ok' };
    case 'review.concern':
      return {
        text: `${p.severity ?? 'info'} concern${task ? ` on ${task}` : ''}: ${p.concern}`,
        tone: p.severity === 'blocking' ? 'blocking' : p.severity === 'major' ? 'bad' : undefined,
      };
    case 'gate.opened':
      return { text: `gate ${p.gate_id} opened` };
    case 'gate.passed':
      return { text: `gate ${p.gate_id} passed`, tone: 'ok' };
    default:
      return null;
  }
}
