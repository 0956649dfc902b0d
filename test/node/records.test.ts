import { describe, expect, it } from 'vitest';
import { hasOwnKey, ownValue, setOwn } from '../../src/kernel/records';

describe('records keyed by names users choose', () => {
  it('see only their own keys, and store __proto__ as a key', () => {
    const record: Record<string, number> = {};
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect([name, ownValue(record, name), hasOwnKey(record, name)]).toEqual([
        name,
        undefined,
        false,
      ]);
    }
    setOwn(record, '__proto__', 1);
    setOwn(record, 'constructor', 2);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(ownValue(record, '__proto__')).toBe(1);
    expect(ownValue(record, 'constructor')).toBe(2);
    // As JSON and through structured clone, the keys stay keys.
    const json = JSON.stringify(record);
    expect(json).toBe('{"__proto__":1,"constructor":2}');
    expect(ownValue(JSON.parse(json), '__proto__')).toBe(1);
    expect(ownValue(structuredClone(record), '__proto__')).toBe(1);
    expect(Object.keys(structuredClone(record))).toEqual(['__proto__', 'constructor']);
  });
});
