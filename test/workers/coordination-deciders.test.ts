import { describe, expect, it } from 'vitest';
import type { Decider } from '../../src/kernel/kind';
import type { CheckingDecider, CoordinationConfig } from '../../src/modules/coordination/config';
import { agentDecider } from '../../src/modules/coordination/kinds/agent-decider';
import { projectDecider } from '../../src/modules/coordination/kinds/project-decider';
import {
  revokeDraft,
  type TaskState,
  taskDecider,
} from '../../src/modules/coordination/kinds/task-decider';
import type { Failure, Wire } from '../../src/protocol';

// The deciders are pure: Given Wires, When a command (a Wire or the clock),
// Then the verdict and the effects. No Durable Object, no clock.
const cfg: CoordinationConfig = {
  leaseMaxMs: 3_600_000,
  agentStaleMs: 120_000,
  reservationTimeoutMs: 30_000,
  clockSkewMs: 300_000,
};
const T0 = Date.parse('2026-05-01T16:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function wireOf(
  stream: string,
  seq: number,
  type: string,
  sender: string,
  payload: Wire['payload'],
  extra: Partial<Wire> = {},
): Wire {
  return {
    wire: '1.1',
    wire_id: `w${seq}`,
    stream_id: stream,
    stream_seq: seq,
    correlation_id: null,
    causation_id: null,
    type,
    sender,
    ts: at(0),
    payload,
    ...extra,
  };
}

/**
 * When `command` reaches a decider in `state` at `now`: null when it is
 * appended as sent (the decider answers `[command]`), else the Failure.
 */
function when<S>(
  decider: CheckingDecider<S> & Decider<S, CoordinationConfig>,
  command: Wire,
  state: S,
  now: number,
): Failure | null {
  const { stream_seq: _seq, ...draft } = command;
  const outcome = decider.decide(command, state, { now, cfg, hold: null });
  if (!Array.isArray(outcome)) return outcome as Failure;
  expect(outcome).toEqual([draft]);
  return null;
}

function given<S>(decider: CheckingDecider<S>, wires: Wire[]): S {
  return wires.reduce((s, w) => decider.evolve(s, w, cfg), decider.initialState());
}

const TASK = 'task:r1:attempt:1';
const offered = wireOf(
  TASK,
  1,
  'task.available',
  'coordinator:p',
  { task_id: 'r1', role: 'developer' },
  { correlation_id: 'project:kv' },
);
const claimed = wireOf(TASK, 2, 'task.claimed', 'agent:q', {
  task_id: 'r1',
  agent: 'q',
  role: 'developer',
  lease_expires_at: at(600),
  capacity_units_reserved: 2,
});

describe('task decider', () => {
  it('grants the first claim a lease fenced by attempt and claim seq, capped at the maximum', () => {
    const state = given(taskDecider, [offered]);
    const long = { ...claimed, payload: { ...claimed.payload, lease_expires_at: at(99_999) } };
    expect(when(taskDecider, long, state, T0)).toBeNull();
    const after = taskDecider.evolve(state, long, cfg);
    expect(after.lease).toMatchObject({
      fencingToken: '1.2',
      expiresAt: T0 + cfg.leaseMaxMs,
      units: 2,
    });
    const effects = taskDecider.react(state, after, long);
    expect(effects.map((e) => [e.target, e.draft.type])).toEqual([
      ['agent:q', 'agent.capacity.confirmed'],
    ]);
  });

  it('expires a lapsed lease once, returns its units and offers the next attempt caused by the expiry', () => {
    const state = given(taskDecider, [offered, claimed]);
    expect(taskDecider.tick(state, T0 + 599_000, TASK, cfg)).toEqual([]);
    const [expiry] = taskDecider.tick(state, T0 + 601_000, TASK, cfg);
    expect(expiry).toMatchObject({
      type: 'task.lease.expired',
      sender: 'system',
      wire_id: 'expired:task:r1:attempt:1:1.2',
    });
    const expired = { ...(expiry as Omit<Wire, 'stream_seq'>), stream_seq: 3 };
    const after = taskDecider.evolve(state, expired, cfg);
    expect(after.status).toBe('expired');
    expect(taskDecider.tick(after, T0 + 999_000, TASK, cfg)).toEqual([]);
    const effects = taskDecider.react(state, after, expired);
    expect(effects.map((e) => [e.target, e.draft.type, e.draft.causation_id])).toEqual([
      ['agent:q', 'agent.capacity.returned', expired.wire_id],
      ['task:r1:attempt:2', 'task.available', expired.wire_id],
    ]);
    expect(effects[1]?.draft).toMatchObject({
      wire_id: 'offer:r1:2',
      correlation_id: 'project:kv',
      payload: { attempt: 2 },
    });
  });

  it('revokes a lease whose capacity confirm was refused, like an expiry', () => {
    const state = given(taskDecider, [offered, claimed]);
    const draft = revokeDraft(state, TASK, T0 + 1000, 'reservation lapsed');
    const revoked = { ...(draft as Omit<Wire, 'stream_seq'>), stream_seq: 3 };
    const after = taskDecider.evolve(state, revoked, cfg) as TaskState;
    expect(after.status).toBe('revoked');
    expect(
      when(
        taskDecider,
        wireOf(TASK, 4, 'task.started', 'agent:q', { task_id: 'r1', fencing_token: '1.2' }),
        after,
        T0 + 2000,
      ),
    ).toMatchObject({
      code: 'stale-fencing-token',
    });
  });

  it('forwards contract.ready to the project named by the task correlation', () => {
    const state = given(taskDecider, [offered, claimed]);
    const ready = wireOf(TASK, 3, 'contract.ready', 'agent:q', {
      task_id: 'r1',
      contract: 'auth',
      fencing_token: '1.2',
    });
    const effects = taskDecider.react(state, taskDecider.evolve(state, ready, cfg), ready);
    expect(effects).toEqual([
      expect.objectContaining({
        target: 'project:kv',
        draft: expect.objectContaining({
          type: 'upstream.ready',
          causation_id: 'w3',
          payload: expect.objectContaining({
            task_id: 'r1',
            signal: 'contract.ready',
            name: 'auth',
          }),
        }),
      }),
    ]);
  });
});

describe('agent decider', () => {
  const AGENT = 'agent:q';
  const capacity = wireOf(AGENT, 1, 'agent.capacity.updated', AGENT, {
    available_units: 3,
    max_units: 3,
  });
  const reserve = (seq: number, id: string, units: number) =>
    wireOf(AGENT, seq, 'agent.capacity.reserved', 'system', {
      reservation_id: id,
      units,
      task_stream_id: TASK,
      expires_at: at(30),
    });

  it('never reserves more units than are free', () => {
    const state = given(agentDecider, [capacity, reserve(2, 'a', 2)]);
    expect(when(agentDecider, reserve(3, 'b', 2), state, T0)).toMatchObject({
      code: 'insufficient-capacity',
      extra: { available_units: 1, requested_units: 2 },
    });
  });

  it('returns a pending reservation at its timeout, and a late confirm learns it was returned', () => {
    const state = given(agentDecider, [capacity, reserve(2, 'a', 2)]);
    const [lapsed] = agentDecider.tick(state, T0 + 31_000, AGENT, cfg);
    const after = agentDecider.evolve(
      state,
      { ...(lapsed as Omit<Wire, 'stream_seq'>), stream_seq: 3 },
      cfg,
    );
    expect(after.availableUnits).toBe(3);
    const confirm = wireOf(AGENT, 4, 'agent.capacity.confirmed', 'system', { reservation_id: 'a' });
    expect(when(agentDecider, confirm, after, T0)).toMatchObject({
      extra: { reservation_status: 'returned' },
    });
  });
});

describe('project decider', () => {
  const P = 'project:kv';
  const created = (seq: number, id: string) =>
    wireOf(P, seq, 'task.created', 'coordinator:p', { task_id: id, role: 'developer' });
  const signal = (seq: number) =>
    wireOf(P, seq, 'upstream.ready', 'system', {
      task_id: 'r1',
      signal: 'contract.ready',
      name: 'auth',
      source_wire_id: 'src-1',
    });

  it('releases a dependency recorded after its signal at once, caused by the signal', () => {
    const state = given(projectDecider, [created(1, 'r1'), created(2, 'r2'), signal(3)]);
    const dep = wireOf(P, 4, 'dependency.created', 'coordinator:p', {
      downstream_task_id: 'r2',
      upstream_task_id: 'r1',
      release_on: { type: 'contract.ready', name: 'auth' },
    });
    const after = projectDecider.evolve(state, dep, cfg);
    const effects = projectDecider.react(state, after, dep);
    expect(effects.map((e) => [e.target, e.draft.causation_id])).toEqual([
      ['task:r2:attempt:1', 'src-1'],
    ]);
    expect(
      projectDecider.react(after, projectDecider.evolve(after, signal(5), cfg), signal(5)),
    ).toEqual([]);
  });
});
