import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentDecider } from '../../src/modules/coordination/kinds/agent-decider';
import type { AgentState } from '../../src/modules/coordination/kinds/agent-state';
import { agentRuntimeState } from '../../src/modules/coordination/read-models/agent-runtime-state';
import type { Wire } from '../../src/protocol';

const STREAM = 'agent:prop';
const CFG = { clockSkewMs: 300_000 } as never;
const NOW = Date.parse('2026-05-01T16:00:00Z');

type Step =
  | { kind: 'update'; available: number; max: number }
  | { kind: 'reserve'; id: number; units: number }
  | { kind: 'confirm'; id: number }
  | { kind: 'return'; id: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }))
    .map(([a, b]) => ({ kind: 'update' as const, available: Math.min(a, b), max: Math.max(a, b) })),
  fc.record({
    kind: fc.constant('reserve' as const),
    id: fc.integer({ min: 0, max: 4 }),
    units: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant('confirm' as const), id: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('return' as const), id: fc.integer({ min: 0, max: 4 }) }),
);

function wireOf(s: Step, seq: number): Wire {
  const base = {
    wire: '1.1' as const,
    wire_id: `w${seq}`,
    stream_id: STREAM,
    stream_seq: seq,
    correlation_id: null,
    causation_id: null,
    ts: '2026-05-01T16:00:00Z',
  };
  const rid = (id: number) => `task:T${id}:attempt:1/claim${id}`;
  switch (s.kind) {
    case 'update':
      return {
        ...base,
        type: 'agent.capacity.updated',
        sender: STREAM,
        payload: { available_units: s.available, max_units: s.max },
      };
    case 'reserve':
      return {
        ...base,
        type: 'agent.capacity.reserved',
        sender: 'system',
        payload: {
          reservation_id: rid(s.id),
          units: s.units,
          task_stream_id: `task:T${s.id}:attempt:1`,
          expires_at: '2026-05-01T16:00:30Z',
        },
      };
    // A reservation's end: the system confirms it or returns its units.
    case 'confirm':
    case 'return':
      return {
        ...base,
        type: s.kind === 'confirm' ? 'agent.capacity.confirmed' : 'agent.capacity.returned',
        sender: 'system',
        payload: { reservation_id: rid(s.id) },
      };
  }
}

const reservedOf = (state: AgentState) =>
  Object.values(state.reservations).reduce((sum, r) => sum + r.units, 0);

describe('capacity: reserved never exceeds max, for any agent-stream history', () => {
  it('holds in the decider and in the read model, which agree', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = agentDecider.initialState();
        let row: ReturnType<typeof agentRuntimeState.initial> | null = null;
        let seq = 0;
        for (const s of steps) {
          const wire = wireOf(s, seq + 1);
          const refused = agentDecider.check(wire, state, NOW, CFG);
          if (refused) continue;
          seq += 1;
          state = agentDecider.evolve(state, wire, CFG);
          row = agentRuntimeState.evolve(row ?? agentRuntimeState.initial(wire), wire, {} as never);
          const reserved = reservedOf(state);
          if (state.maxUnits !== null) {
            expect(reserved).toBeLessThanOrEqual(state.maxUnits);
            expect(state.availableUnits ?? 0).toBeGreaterThanOrEqual(0);
            expect((state.availableUnits ?? 0) + reserved).toBeLessThanOrEqual(state.maxUnits);
          }
          expect(row.reserved_units).toBe(reserved);
          expect(row.available_units).toBe(state.availableUnits);
          expect(row.max_units).toBe(state.maxUnits);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the issue example: a restarted agent re-declaring 3 of 3 while holding 2 cannot reach 5 reserved', () => {
    let state = agentDecider.initialState();
    let seq = 0;
    const apply = (s: Step) => {
      const wire = wireOf(s, ++seq);
      const refused = agentDecider.check(wire, state, NOW, CFG);
      if (!refused) state = agentDecider.evolve(state, wire, CFG);
      return refused;
    };
    apply({ kind: 'update', available: 3, max: 3 });
    expect(apply({ kind: 'reserve', id: 0, units: 2 })).toBeNull();
    apply({ kind: 'confirm', id: 0 });
    apply({ kind: 'update', available: 3, max: 3 });
    expect(state.availableUnits).toBe(1);
    expect(apply({ kind: 'reserve', id: 1, units: 3 })?.code).toBe('insufficient-capacity');
    expect(reservedOf(state)).toBe(2);
  });
});
