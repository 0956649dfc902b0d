import type { StreamSummary, TypeSpec } from '../../kernel/module';
import { KEY_PAYLOADS } from './kinds/agent-keys';
import { PAYLOADS } from './payloads';

/**
 * Seed 000's type catalogue: each Wire type declared once, with its payload
 * schema, who may post it, whether the lease holder must fence it, what it
 * does to a task's status and to its stream's summary. The deciders, the
 * read models and the API's rights check all read this table.
 */
export type TaskStatus =
  | 'pending'
  | 'available'
  | 'claimed'
  | 'started'
  | 'complete'
  | 'blocked'
  | 'released'
  | 'expired'
  | 'revoked';

export interface CoordinationType extends TypeSpec {
  /** Only the live lease holder may append it, with its fencing token. */
  fenced?: true;
  /** Takes or renews the lease. */
  claim?: true;
  /** Ends the attempt with this status (and hands back its lease). */
  ending?: TaskStatus;
  /** Tells the project an upstream is ready (dependency release). */
  signal?: true;
  /** Written by the coordinator only. */
  systemOnly?: true;
}

type Types = Record<string, CoordinationType>;

function named(field: string, list: string) {
  return (summary: StreamSummary, payload: Record<string, unknown>): StreamSummary => {
    const value = payload[field];
    if (typeof value !== 'string') return summary;
    const current = (summary[list] as string[] | undefined) ?? [];
    return current.includes(value) ? summary : { ...summary, [list]: [...current, value] };
  };
}

function gate(state: 'opened' | 'passed') {
  return (summary: StreamSummary, payload: Record<string, unknown>): StreamSummary => {
    const id = payload.gate_id;
    if (typeof id !== 'string') return summary;
    const gates = (summary.gates as Record<string, string> | undefined) ?? {};
    return { ...summary, gates: { ...gates, [id]: state } };
  };
}

const orchestration = { orchestration: true } as const;

export const COORDINATION_TYPES: Types = {
  // project stream
  'project.created': { payload: PAYLOADS['project.created'], ...orchestration, status: 'active' },
  'phase.created': { payload: PAYLOADS['phase.created'], ...orchestration },
  'task.created': { payload: PAYLOADS['task.created'], ...orchestration },
  'dependency.created': { payload: PAYLOADS['dependency.created'], ...orchestration },
  'gate.opened': { payload: PAYLOADS['gate.opened'], ...orchestration, summarize: gate('opened') },
  'gate.passed': { payload: PAYLOADS['gate.passed'], ...orchestration, summarize: gate('passed') },
  'project.complete': {
    payload: PAYLOADS['project.complete'],
    ...orchestration,
    status: 'complete',
  },
  // task stream
  'task.available': { payload: PAYLOADS['task.available'], ...orchestration, status: 'available' },
  'task.claim': { payload: PAYLOADS['task.claim'], scope: 'claim', claim: true, status: 'claimed' },
  'task.claimed': {
    payload: PAYLOADS['task.claimed'],
    scope: 'claim',
    claim: true,
    status: 'claimed',
  },
  'task.started': { payload: PAYLOADS['task.started'], fenced: true, status: 'started' },
  'task.plan.created': { payload: PAYLOADS['task.plan.created'], fenced: true },
  'task.heartbeat': { fenced: true },
  'task.blocked': {
    payload: PAYLOADS['task.blocked'],
    fenced: true,
    ending: 'blocked',
    status: 'blocked',
  },
  'task.complete': {
    payload: PAYLOADS['task.complete'],
    fenced: true,
    ending: 'complete',
    signal: true,
    status: 'complete',
  },
  'task.released': { fenced: true, ending: 'released', status: 'released' },
  'task.lease.expired': { systemOnly: true, ending: 'expired', status: 'expired' },
  'task.lease.revoked': { systemOnly: true, ending: 'revoked', status: 'revoked' },
  'artifact.claimed': { payload: PAYLOADS['artifact.claimed'], fenced: true },
  'artifact.ready': {
    payload: PAYLOADS['artifact.ready'],
    fenced: true,
    signal: true,
    summarize: named('artifact_ref', 'artifacts'),
  },
  'contract.ready': {
    payload: PAYLOADS['contract.ready'],
    fenced: true,
    signal: true,
    summarize: named('contract', 'contracts'),
  },
  'review.concern': { payload: PAYLOADS['review.concern'] },
  // agent stream
  'agent.started': { payload: PAYLOADS['agent.started'], status: 'running' },
  'agent.heartbeat': { payload: PAYLOADS['agent.heartbeat'] },
  'agent.capacity.updated': { payload: PAYLOADS['agent.capacity.updated'] },
  'agent.lease.accepted': { payload: PAYLOADS['agent.lease.accepted'] },
  'agent.lease.released': { payload: PAYLOADS['agent.lease.released'] },
  'agent.stopped': { payload: PAYLOADS['agent.stopped'], status: 'stopped' },
  // the agent's signing keys (kinds/agent-keys.ts): the agent itself or an admin
  'agent.key.registered': {
    payload: KEY_PAYLOADS['agent.key.registered'],
    ownerOrAdmin: true,
  },
  'agent.key.rotated': { payload: KEY_PAYLOADS['agent.key.rotated'], ownerOrAdmin: true },
  'agent.key.revoked': { payload: KEY_PAYLOADS['agent.key.revoked'], ownerOrAdmin: true },
};

/** Every `project.*` type shapes the plan. */
export const COORDINATION_PREFIXES: Record<string, TypeSpec> = {
  'project.': orchestration,
};

/** Catalogue entry of a type (exact names only: the prefixes add rights, nothing else). */
export function typeOf(type: string): CoordinationType | undefined {
  return Object.hasOwn(COORDINATION_TYPES, type) ? COORDINATION_TYPES[type] : undefined;
}

/** Payload schemas by type, as `parseAppend` takes them (for tools and tests outside workerd). */
export function coordinationPayloads(type: string) {
  return typeOf(type)?.payload;
}

/** Ids of the Wires the deciders derive (see their `derivedWireId` calls). */
export const COORDINATION_DERIVED_IDS = [
  'confirm',
  'expired',
  'feed',
  'lapsed',
  'offer',
  'release',
  'return',
  'revoked',
  'signal',
] as const;
