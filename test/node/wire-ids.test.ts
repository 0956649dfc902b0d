import { decodeTime, isValid } from 'ulidx';
import { describe, expect, it } from 'vitest';
import { newWireId } from '../../src/protocol/ids';

const ulidOf = (id: string) => id.slice('wire_'.length);

describe('server-assigned wire ids', () => {
  it('are wire_ and a ULID carrying the time they were minted', () => {
    const now = Date.parse('2026-05-01T16:00:00.123Z');
    const id = newWireId(now);
    expect(id).toMatch(/^wire_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isValid(ulidOf(id))).toBe(true);
    expect(decodeTime(ulidOf(id))).toBe(now);
  });

  it('stay in minting order within one millisecond and across a clock step back', () => {
    const now = Date.parse('2026-05-01T16:00:01Z');
    const ids = [
      ...Array.from({ length: 50 }, () => newWireId(now)),
      newWireId(now - 5), // the clock went back: still after the ones before
      newWireId(now + 1),
    ];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw the random part afresh in a new millisecond', () => {
    const a = ulidOf(newWireId(Date.parse('2026-05-01T16:00:02Z')));
    const b = ulidOf(newWireId(Date.parse('2026-05-01T16:00:03Z')));
    expect(a.slice(10)).not.toBe(b.slice(10));
  });
});
