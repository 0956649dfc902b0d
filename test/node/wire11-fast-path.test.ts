import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Wire11Input } from '../../src/protocol/envelope';
import { isPlainWire11 } from '../../src/protocol/wire11-fast-path';

const SID = 'project:p1';

const valid = () => ({
  wire: '1.1',
  wire_id: 'w-1',
  stream_id: SID,
  type: 'agent.heartbeat',
  sender: 'agent:a',
  ts: '2026-05-01T16:00:00Z',
  payload: { n: 1, note: 'x', list: [1, 'a', null, true, { k: 2 }] },
});

/** What the fast path accepts, zod's schema must accept, returning the same value. */
function agrees(body: unknown): void {
  if (!isPlainWire11(body, SID)) return;
  const ts = (body as { ts: unknown }).ts;
  if (!Wire11Input.shape.ts.safeParse(ts).success) return;
  const zod = Wire11Input.safeParse(body);
  expect(zod.success).toBe(true);
  expect(zod.data).toEqual(body);
}

describe('the Wire 1.1 fast path', () => {
  it('accepts the common append', () => {
    expect(isPlainWire11(valid(), SID)).toBe(true);
    expect(isPlainWire11({ ...valid(), stream_seq: 3, correlation_id: null }, SID)).toBe(true);
    agrees(valid());
  });

  it('leaves every doubtful body to zod', () => {
    const doubtful: unknown[] = [
      null,
      [],
      { ...valid(), wire: '1.0' },
      { ...valid(), stream_id: 'project:other' },
      { ...valid(), extra: 1 },
      { ...valid(), stream_seq: 0 },
      { ...valid(), stream_seq: 1.5 },
      { ...valid(), stream_seq: 2 ** 53 },
      { ...valid(), stream_seq: '1' },
      { ...valid(), correlation_id: '' },
      { ...valid(), causation_id: 'x'.repeat(257) },
      { ...valid(), type: `a.${'b'.repeat(99)}` },
      { ...valid(), type: 'Agent.heartbeat' },
      { ...valid(), wire_id: '-w' },
      { ...valid(), sender: 'agent a' },
      { ...valid(), ts: 7 },
      { ...valid(), payload: [] },
      { ...valid(), payload: { big: Number.POSITIVE_INFINITY } },
      { ...valid(), payload: JSON.parse('{"a":{"__proto__":{"x":1}}}') },
      Object.fromEntries(Object.entries(valid()).filter(([k]) => k !== 'payload')),
    ];
    for (const body of doubtful) expect([body, isPlainWire11(body, SID)]).toEqual([body, false]);
  });

  it('never accepts what zod refuses, nor changes what it returns', () => {
    const text = fc.oneof(
      fc.constantFrom('', 'w-1', 'agent:a', 'a.b', 'project:p1', '2026-05-01T16:00:00Z'),
      fc.string({ maxLength: 140 }),
    );
    const json = fc.jsonValue({ maxDepth: 3 });
    const field = fc.oneof(text, json, fc.constant(undefined));
    const body = fc.record(
      {
        wire: fc.oneof(fc.constant('1.1'), field),
        wire_id: fc.oneof(fc.constant('w-1'), field),
        stream_id: fc.oneof(fc.constant(SID), field),
        stream_seq: fc.oneof(fc.integer({ min: -2, max: 2 ** 54 }), fc.double(), field),
        correlation_id: fc.oneof(fc.constant(null), field),
        causation_id: fc.oneof(fc.constant(null), field),
        type: fc.oneof(fc.constant('agent.heartbeat'), field),
        sender: fc.oneof(fc.constant('agent:a'), field),
        ts: fc.oneof(fc.constant('2026-05-01T16:00:00Z'), field),
        payload: fc.oneof(fc.dictionary(fc.string(), json), field),
        extra: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, (b) => {
        agrees(JSON.parse(JSON.stringify(b)));
      }),
      { numRuns: 2000 },
    );
  });
});
