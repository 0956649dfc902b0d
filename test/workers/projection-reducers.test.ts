import { describe, expect, it } from 'vitest';
import { agentRuntimeState } from '../../src/modules/coordination/read-models/agent-runtime-state';
import { taskRunState } from '../../src/modules/coordination/read-models/task-run-state';
import { foldStream, type ProjectedWire, streamState } from '../../src/projection';
import { owns } from '../../src/projection/reducer';
import { WireFactory } from './helpers/projection-fixtures';

/** Given some Wires on a stream, when a reducer folds them, then the row reads… */
function given(build: (f: WireFactory) => ProjectedWire[]) {
  const wires = build(new WireFactory());
  return {
    task: () => foldStream(taskRunState, wires),
    agent: () => foldStream(agentRuntimeState, wires),
    stream: () => foldStream(streamState, wires),
  };
}

const T = 'task:0.0.9001:attempt:1';
const claim = (agent: string, units?: number) => ({
  task_id: '0.0.9001',
  agent,
  role: 'developer',
  lease_expires_at: '2026-05-01T18:30:00+02:00',
  ...(units === undefined ? {} : { capacity_units_reserved: units }),
});

describe('task_run_state reducer', () => {
  it('shows an offered task as available for its role', () => {
    const row = given((f) => [
      f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' }),
    ]).task();
    expect(row).toMatchObject({
      task_id: '0.0.9001',
      attempt: 1,
      role: 'developer',
      status: 'available',
      claimed_by: null,
      last_seq: 1,
    });
  });

  it('records the claimer, lease (in UTC) and reserved units of a claim', () => {
    const row = given((f) => [
      f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' }),
      f.wire(T, 'task.claimed', claim('quinn-07', 3)),
    ]).task();
    expect(row).toMatchObject({
      status: 'claimed',
      claimed_by: 'quinn-07',
      lease_expires_at: '2026-05-01T16:30:00.000Z',
      capacity_units_reserved: 3,
    });
  });

  it('follows the lifecycle through plan, artifacts, contract, concern and completion', () => {
    const row = given((f) => [
      f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' }),
      f.wire(T, 'task.claim', claim('quinn-07')),
      f.wire(T, 'task.started', { task_id: '0.0.9001' }),
      f.wire(T, 'task.plan.created', { task_id: '0.0.9001', plan_ref: 'plans/1.md' }),
      f.wire(T, 'artifact.claimed', { artifact_id: 'mig-5', artifact_type: 'migration' }),
      f.wire(T, 'artifact.ready', {
        artifact_id: 'mig-5',
        artifact_type: 'migration',
        artifact_ref: 'r2://task-runs/5.sql',
        sha256: 'a'.repeat(64),
      }),
      f.wire(T, 'contract.ready', { contract: 'auth_expert_id_mapping' }),
      f.wire(T, 'review.concern', { concern: 'missing index', severity: 'minor' }),
      f.wire(T, 'task.heartbeat', { lease_expires_at: '2026-05-01T17:00:00Z' }),
      f.wire(T, 'task.complete', { task_id: '0.0.9001', output_ref: 'git:abc123' }),
    ]).task();
    expect(row).toMatchObject({
      status: 'complete',
      plan_ref: 'plans/1.md',
      output_ref: 'git:abc123',
      verification_status: 'concerns',
      concerns: 1,
      lease_expires_at: null,
      last_seq: 10,
    });
    expect(JSON.parse(String(row?.artifacts))).toEqual([
      {
        artifact_id: 'mig-5',
        artifact_type: 'migration',
        artifact_ref: 'r2://task-runs/5.sql',
        sha256: 'a'.repeat(64),
        status: 'ready',
      },
    ]);
    expect(JSON.parse(String(row?.contracts))).toEqual(['auth_expert_id_mapping']);
  });

  it('extends the lease by the claim length on a heartbeat that names no time', () => {
    const row = given((f) => {
      const offered = f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' });
      const claimed = f.wire(T, 'task.claimed', {
        ...claim('quinn-07'),
        lease_expires_at: '2026-05-01T16:10:02Z',
      });
      const beat = f.wire(T, 'task.heartbeat', { task_id: '0.0.9001' });
      return [offered, claimed, beat];
    }).task();
    // Claimed at 16:00:02 for 10 minutes; the heartbeat at 16:00:03 moves it on.
    expect(row).toMatchObject({ lease_ms: 600_000, lease_expires_at: '2026-05-01T16:10:03.000Z' });
  });

  it('marks a lapsed lease as expired and keeps who held it', () => {
    const row = given((f) => [
      f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' }),
      f.wire(T, 'task.claimed', claim('quinn-07')),
      f.wire(T, 'task.lease.expired', { task_id: '0.0.9001', agent: 'quinn-07' }),
    ]).task();
    expect(row).toMatchObject({
      status: 'expired',
      claimed_by: 'quinn-07',
      lease_expires_at: null,
    });
  });

  it('ignores streams that are not task attempts', () => {
    expect(owns(taskRunState, 'agent:quinn-07')).toBe(false);
    expect(owns(taskRunState, T)).toBe(true);
  });
});

describe('agent_runtime_state reducer', () => {
  const A = 'agent:quinn-07';

  it('tracks declared, reserved and returned capacity like the coordinator', () => {
    const row = given((f) => [
      f.wire(A, 'agent.started', { role: 'developer' }, { sender: A }),
      f.wire(A, 'agent.capacity.updated', { available_units: 6, max_units: 6 }, { sender: A }),
      f.wire(A, 'agent.capacity.reserved', { reservation_id: 'r1', units: 3 }),
      f.wire(A, 'agent.capacity.reserved', { reservation_id: 'r2', units: 2 }),
      f.wire(A, 'agent.capacity.confirmed', { reservation_id: 'r1' }),
      f.wire(A, 'agent.capacity.returned', { reservation_id: 'r2', units: 2 }),
      f.wire(A, 'agent.capacity.returned', { reservation_id: 'unknown', units: 9 }),
    ]).agent();
    expect(row).toMatchObject({
      agent_id: 'quinn-07',
      role: 'developer',
      status: 'running',
      available_units: 3,
      max_units: 6,
      reserved_units: 3,
    });
    expect(JSON.parse(String(row?.reservations))).toEqual({ r1: { units: 3, status: 'held' } });
  });

  it('counts leases accepted and released, and stays stopped after agent.stopped', () => {
    const row = given((f) => [
      f.wire(A, 'agent.lease.accepted', { task_id: 'T1' }, { sender: A }),
      f.wire(A, 'agent.lease.accepted', { task_id: 'T2' }, { sender: A }),
      f.wire(A, 'agent.lease.released', { task_id: 'T1' }, { sender: A }),
      f.wire(A, 'agent.stopped', {}, { sender: A }),
      f.wire(A, 'agent.heartbeat', {}, { sender: A }),
    ]).agent();
    expect(row).toMatchObject({ active_leases: 1, status: 'stopped' });
    expect(JSON.parse(String(row?.leases))).toEqual(['T2']);
    expect(row?.last_heartbeat_at).toBe(row?.last_seen_at);
  });

  it('does not count system Wires as the agent being seen', () => {
    const row = given((f) => [
      f.wire(A, 'agent.capacity.updated', { available_units: 1, max_units: 1 }, { sender: A }),
      f.wire(A, 'agent.capacity.reserved', { reservation_id: 'r', units: 1 }),
    ]).agent();
    expect(row?.last_seen_at).not.toBe(row?.last_event_at);
  });
});

describe('stream_state reducer', () => {
  it('summarises a project stream: status, gates, contracts and correlation', () => {
    const P = 'project:kv-m02';
    const row = given((f) => [
      f.wire(P, 'project.created', { name: 'kv' }, { correlation_id: 'client:acme' }),
      f.wire(P, 'gate.opened', { gate_id: 'g1' }),
      f.wire(P, 'gate.passed', { gate_id: 'g1' }),
      f.wire(P, 'contract.ready', { contract: 'auth' }),
      f.wire(P, 'project.complete', {}),
    ]).stream();
    expect(row).toMatchObject({
      stream_type: 'project',
      status: 'complete',
      correlation_id: 'client:acme',
      wire_count: 5,
      last_event_type: 'project.complete',
    });
    expect(JSON.parse(String(row?.state))).toEqual({
      counts: {
        'contract.ready': 1,
        'gate.opened': 1,
        'gate.passed': 1,
        'project.complete': 1,
        'project.created': 1,
      },
      gates: { g1: 'passed' },
      contracts: ['auth'],
    });
  });

  it('counts unknown Wire types without changing the status', () => {
    const row = given((f) => [
      f.wire('phase:p1', 'phase.created', { phase_id: 'p1' }),
      f.wire('phase:p1', 'custom.note_added', { text: 'hi' }),
    ]).stream();
    expect(row).toMatchObject({ stream_type: 'phase', status: 'open', wire_count: 2 });
  });

  it('changes nothing when a Wire at or below last_seq is applied again', () => {
    const wires = (f: WireFactory) => [
      f.wire(T, 'task.available', { task_id: '0.0.9001', role: 'developer' }),
      f.wire(T, 'task.claimed', claim('quinn-07')),
    ];
    const f = new WireFactory();
    const list = wires(f);
    const once = foldStream(streamState, list);
    const twice = foldStream(streamState, [...list, ...list]);
    expect(twice).toEqual(once);
  });
});
