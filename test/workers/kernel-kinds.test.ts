import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { DecideContext, StreamKind } from '../../src/kernel/kind';
import { schemaGate, sqlOf } from '../../src/kernel/sql';
import { REGISTRY } from '../../src/modules';
import { type CoordinationConfig, configOf } from '../../src/modules/coordination/config';
import { taskRunState } from '../../src/modules/coordination/read-models/task-run-state';
import { foldStream } from '../../src/projection';
import type { Draft, Failure, Wire } from '../../src/protocol';

// Given / When / Then over the kernel's contract: a kind from the registry
// folds the Wires given, decides the command, and the read model folds the
// same Wires with the same deployment settings.

const T0 = Date.parse('2026-05-01T16:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const TASK = 'task:g1:attempt:1';

function wireOf(seq: number, type: string, sender: string, payload: Wire['payload']): Wire {
  return {
    wire: '1.1',
    wire_id: `g${seq}`,
    stream_id: TASK,
    stream_seq: seq,
    correlation_id: 'project:g',
    causation_id: null,
    type,
    sender,
    ts: at(seq),
    payload,
  };
}

const offered = wireOf(1, 'task.available', 'coordinator:p', { task_id: 'g1', role: 'dev' });
const claimFor = (seconds: number) =>
  wireOf(2, 'task.claimed', 'agent:q', {
    task_id: 'g1',
    agent: 'q',
    role: 'dev',
    lease_expires_at: at(seconds),
  });

/** Given these Wires on a stream of `kind`… */
function given(streamId: string, wires: Wire[], vars: Record<string, string> = {}) {
  const kind = REGISTRY.kindOf(streamId) as StreamKind<unknown, CoordinationConfig>;
  const cfg = configOf(vars);
  const state = wires.reduce((s, w) => kind.decider.evolve(s, w, cfg), kind.decider.initialState());
  return {
    kind,
    state,
    /** …when this command arrives at `now`… */
    when(command: Wire, now = Date.parse(command.ts)) {
      const ctx: DecideContext<CoordinationConfig> = { now, cfg, hold: null };
      const outcome = kind.decider.decide(command, state, ctx);
      return {
        /** …then it is appended as sent (and nothing else). */
        thenAppends(expected: Draft[]) {
          expect(outcome).toEqual(expected);
        },
        /** …then it is refused with this code. */
        thenRefuses(code: string) {
          expect(Array.isArray(outcome)).toBe(false);
          expect((outcome as Failure).code).toBe(code);
        },
      };
    },
  };
}

const draftOf = ({ stream_seq: _seq, ...draft }: Wire): Draft => draft;

describe('a kind from the registry', () => {
  it('answers a command it accepts with the Wires to append, the command first', () => {
    given(TASK, [offered])
      .when(claimFor(600))
      .thenAppends([draftOf(claimFor(600))]);
  });

  it('answers a command it refuses with a Failure and appends nothing', () => {
    given(TASK, []).when(claimFor(600)).thenRefuses('task-not-available');
    given(TASK, [offered, claimFor(600)])
      .when({ ...claimFor(600), stream_seq: 3, wire_id: 'g3', sender: 'agent:z' })
      .thenRefuses('invalid-wire');
  });

  it('leaves a stream of no registered kind to append as sent', () => {
    expect(REGISTRY.kindOf('notes:n1')).toBeNull();
    expect(REGISTRY.kindOf(TASK)?.name).toBe('task');
  });

  it('adds receipt fields through its hook', () => {
    const { kind, state } = given(TASK, [offered, claimFor(600)]);
    expect(kind.hooks?.receipt?.(state, claimFor(600), false)).toMatchObject({
      holder: 'agent:q',
      fencing_token: '1.2',
      lease_expires_at: at(600),
    });
  });
});

describe('the task read model agrees with the task decider', () => {
  // The deployment caps leases at 60 s: both sides must apply it.
  const vars = { LEASE_MAX_SECONDS: '60' };

  it('shows the lease the coordinator granted, capped by the deployment', () => {
    const wires = [offered, claimFor(99_999)];
    const { kind, state } = given(TASK, wires, vars);
    const granted = kind.hooks?.receipt?.(state, wires[1] as Wire, false);
    const row = foldStream(taskRunState, wires, vars);
    expect(granted?.lease_expires_at).toBe(at(2 + 60));
    expect(row?.lease_expires_at).toBe(granted?.lease_expires_at);
  });

  it('extends the lease on a heartbeat exactly as the coordinator does', () => {
    const beat = wireOf(3, 'task.heartbeat', 'agent:q', {
      task_id: 'g1',
      fencing_token: '1.2',
      lease_expires_at: at(10_000),
    });
    const wires = [offered, claimFor(40), beat];
    const { kind, state } = given(TASK, wires, vars);
    const row = foldStream(taskRunState, wires, vars);
    const lease = kind.hooks?.receipt?.(
      state,
      { type: 'task.claimed', wire_id: 'g2', payload: {} },
      true,
    );
    expect(lease?.lease_expires_at).toBe(at(3 + 60));
    expect(row?.lease_expires_at).toBe(lease?.lease_expires_at);
    // A replayed heartbeat of that lease answers it too; one with another token, nothing.
    expect(kind.hooks?.receipt?.(state, beat, true)).toEqual({
      lease_expires_at: at(3 + 60),
      fencing_token: '1.2',
    });
    const stale = { ...beat, payload: { ...beat.payload, fencing_token: '1.1' } };
    expect(kind.hooks?.receipt?.(state, stale, true)).toBeNull();
  });

  it('names every status the way the decider does, from the first Wire on', () => {
    const kind = REGISTRY.kindOf(TASK) as StreamKind<{ status: string }, CoordinationConfig>;
    const cfg = configOf(vars);
    const lifecycle = [
      offered,
      claimFor(40),
      wireOf(3, 'task.started', 'agent:q', { task_id: 'g1', fencing_token: '1.2' }),
      wireOf(4, 'task.complete', 'agent:q', { task_id: 'g1', fencing_token: '1.2' }),
    ];
    expect(kind.decider.initialState().status).toBe(taskRunState.initial(offered).status as string);
    let state = kind.decider.initialState();
    for (let i = 0; i < lifecycle.length; i++) {
      state = kind.decider.evolve(state, lifecycle[i] as Wire, cfg);
      const row = foldStream(taskRunState, lifecycle.slice(0, i + 1), vars);
      expect(row?.status).toBe(state.status);
    }
  });
});

describe('the schema gate', () => {
  it('migrates a capability once per version, from the version it found', async () => {
    const stub = env.STREAMS.get(env.STREAMS.idFromName('notes:schema-gate'));
    await runInDurableObject(stub, (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      const ran: number[] = [];
      schemaGate(sql, 'test-capability', 1, (from) => ran.push(from));
      schemaGate(sql, 'test-capability', 1, (from) => ran.push(from));
      schemaGate(sql, 'test-capability', 2, (from) => ran.push(from));
      expect(ran).toEqual([0, 1]);
      // The kernel's own capabilities went through the same gate.
      const kinds = sql<{ capability: string }>`SELECT capability FROM schema_versions
        ORDER BY capability`.map((r) => r.capability);
      expect(kinds).toEqual(expect.arrayContaining(['outbox', 'kind-state']));
    });
  });
});
