import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COORDINATION_DERIVED_IDS,
  coordinationPayloads,
} from '../../src/modules/coordination/catalogue';
import { nativeDialectOf, parseAppend, type Wire, wire10, wire11 } from '../../src/protocol';
import { WIRE_FIELDS } from '../../src/protocol/wire11-fast-path';
import { legacyParseAppend } from './legacy-parse-append';

/** Seed 000's catalogue, as the append path passes it from the registry. */
const SEED_000 = { payloads: coordinationPayloads, reserved: COORDINATION_DERIVED_IDS };

const SID = 'project:p1';
const mint = () => 'wire_01J0000000000000000000000';

const wire11Body = (over: Record<string, unknown> = {}) => ({
  wire: '1.1',
  wire_id: 'w-1',
  stream_id: SID,
  type: 'design.note.added',
  sender: 'agent:a',
  ts: '2026-05-01T16:00:00Z',
  payload: { note: 'x' },
  ...over,
});

const wire10Body = (over: Record<string, unknown> = {}) => ({
  wire: '1.0',
  type: 'agent.heartbeat',
  sender: 'agent:a',
  ts: '2026-05-01T16:00:00Z',
  payload: {},
  ...over,
});

describe('the native dialects (Wire 1.1 and Wire 1.0)', () => {
  it('given a Wire 1.1 body, when parsed, then the Wire is the body with defaults filled', () => {
    // Given
    const body = wire11Body({ stream_seq: 4, correlation_id: 'c-1' });
    // When
    const parsed = parseAppend(body, SID, { ...SEED_000, newWireId: mint });
    // Then
    expect(parsed).toEqual({
      ok: true,
      draft: {
        ...wire11Body({ correlation_id: 'c-1' }),
        causation_id: null,
      },
      expectedSeq: 4,
      upgraded: false,
      dialect: 'wire-1.1',
    });
  });

  it('given a Wire 1.0 body, when parsed, then the server mints the wire_id and the path names the stream', () => {
    const parsed = parseAppend(wire10Body(), SID, { ...SEED_000, newWireId: mint });
    expect(parsed.ok && parsed.draft).toEqual({
      wire: '1.1',
      wire_id: mint(),
      stream_id: SID,
      correlation_id: null,
      causation_id: null,
      type: 'agent.heartbeat',
      sender: 'agent:a',
      ts: '2026-05-01T16:00:00Z',
      payload: {},
    });
    expect(parsed.ok && [parsed.upgraded, parsed.dialect, parsed.expectedSeq]).toEqual([
      true,
      'wire-1.0',
      undefined,
    ]);
  });

  it('given an upgraded 1.0 Wire, when encoded as 1.0, then the client reads back its envelope', () => {
    const parsed = parseAppend(wire10Body({ payload: { a: [1] } }), SID, {
      ...SEED_000,
      newWireId: mint,
    });
    if (!parsed.ok) throw new Error(parsed.detail);
    const wire: Wire = { ...parsed.draft, stream_seq: 9 };
    expect(wire10.encode(wire)).toStrictEqual(wire10Body({ payload: { a: [1] } }));
    // and Wire 1.1 reads back the stored Wire itself
    expect(wire11.encode(wire)).toStrictEqual(wire);
  });

  it('chooses Wire 1.0 only when the body says so; every other body is Wire 1.1', () => {
    expect(nativeDialectOf(wire10Body()).name).toBe('wire-1.0');
    for (const body of [wire11Body(), {}, null, [], 'x', { wire: '2.0' }, { wire: 1 }]) {
      expect(nativeDialectOf(body).name).toBe('wire-1.1');
    }
  });

  it('given a version it does not read, when parsed, then the failure names `wire` as before', () => {
    const parsed = parseAppend(wire11Body({ wire: '2.0' }), SID, SEED_000);
    expect(parsed).toMatchObject({
      ok: false,
      code: 'invalid-wire',
      errors: [
        {
          path: 'wire',
          message: 'wire must be "1.1" (or "1.0" for an envelope without stream fields)',
        },
      ],
    });
  });

  it('answers every body exactly as the pre-dialect parseAppend did', () => {
    const text = fc.oneof(
      fc.constantFrom('', 'w-1', 'offer:t1:2', 'agent:a', 'a.b', SID, 'project:other'),
      fc.constantFrom('2026-05-01T16:00:00Z', '2026-05-01', 'task.claimed', 'Task.Claimed'),
      fc.string({ maxLength: 20 }),
    );
    const json = fc.jsonValue({ maxDepth: 2 });
    const field = fc.oneof(text, json, fc.constant(undefined));
    const payload = fc.oneof(
      fc.constant({}),
      fc.constant({ task_id: 't1', role: 'developer' }),
      fc.constant({ artifact_ref: 'r2://x' }),
      fc.constant({ available_units: 3, max_units: 2 }),
      fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 3 }),
      field,
    );
    const valid = fc.oneof(
      fc.record(
        {
          wire: fc.constant('1.1'),
          wire_id: fc.constantFrom('w-1', 'offer-9', 'offer:t1:2', 'feed:x'),
          stream_id: fc.constantFrom(SID, SID, 'project:other'),
          stream_seq: fc.integer({ min: 1, max: 5 }),
          correlation_id: fc.constantFrom(null, 'c-1'),
          causation_id: fc.constantFrom(null, 'c-2'),
          type: fc.constantFrom('agent.heartbeat', 'task.created', 'agent.capacity.updated', 'x.y'),
          sender: fc.constant('agent:a'),
          ts: fc.constant('2026-05-01T16:00:00Z'),
          payload,
        },
        { requiredKeys: ['wire', 'wire_id', 'stream_id', 'type', 'sender', 'ts', 'payload'] },
      ),
      fc.record(
        {
          wire: fc.constant('1.0'),
          stream_id: fc.constantFrom(SID, SID, 'project:other'),
          type: fc.constantFrom('agent.heartbeat', 'task.created', 'x.y'),
          sender: fc.constant('agent:a'),
          ts: fc.constant('2026-05-01T16:00:00Z'),
          payload,
        },
        { requiredKeys: ['wire', 'type', 'sender', 'ts', 'payload'] },
      ),
    );
    const keys = fc.constantFrom(...WIRE_FIELDS, 'extra');
    // A valid body with up to two fields changed or removed.
    const body = fc
      .tuple(valid, fc.array(fc.tuple(keys, field), { maxLength: 2 }))
      .map(([base, changes]) => {
        const out: Record<string, unknown> = { ...base };
        for (const [key, value] of changes) {
          if (value === undefined) delete out[key];
          else out[key] = value;
        }
        return out;
      });
    const streamId = fc.oneof(
      { arbitrary: fc.constant(SID), weight: 8 },
      { arbitrary: fc.constantFrom('not a stream', 'task:t1'), weight: 1 },
    );
    fc.assert(
      fc.property(
        fc.oneof({ arbitrary: body, weight: 9 }, { arbitrary: json, weight: 1 }),
        streamId,
        (b, sid) => {
          const input = JSON.parse(JSON.stringify(b ?? null));
          const before = legacyParseAppend(input, sid, mint);
          const after = parseAppend(input, sid, { ...SEED_000, newWireId: mint });
          if (after.ok) {
            const { dialect: _dialect, ...rest } = after;
            expect(rest).toStrictEqual(before);
          } else {
            expect(after).toStrictEqual(before);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
