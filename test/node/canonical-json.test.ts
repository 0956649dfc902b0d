import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  legacyCanonicalJson,
  loneSurrogatePath,
  storedCanonicalJson,
} from '../../src/protocol/canonical-json';

/** An IEEE 754 double from the hex notation RFC 8785 Appendix B uses. */
function double(hex: string): number {
  return new DataView(
    Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16)).buffer,
  ).getFloat64(0);
}

describe('canonical JSON (RFC 8785)', () => {
  it('serialises the sample object of RFC 8785 section 3.2.2 to its expected bytes', () => {
    // The input as the RFC writes it, escapes included (parsed, not a JS literal).
    const input = JSON.parse(`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts property names by UTF-16 code units as in RFC 8785 section 3.2.3', () => {
    const input = JSON.parse(`{
      "\\u20ac": "Euro Sign",
      "\\r": "Carriage Return",
      "\\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\\ud83d\\ude00": "Emoji: Grinning Face",
      "\\u0080": "Control",
      "\\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\u{1F600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('puts integer-like keys where their code units sort them, not first', () => {
    expect(canonicalJson({ 2: 'b', 10: 'a', a: 1 })).toBe('{"10":"a","2":"b","a":1}');
    // What Wirestream produced before, kept only to check messages anchored then.
    expect(legacyCanonicalJson({ 2: 'b', 10: 'a', a: 1 })).toBe('{"2":"b","10":"a","a":1}');
  });

  it('serialises numbers as ECMAScript does (RFC 8785 section 3.2.2.3)', () => {
    const cases: [number, string][] = [
      [1e30, '1e+30'],
      [4.5, '4.5'],
      [2e-3, '0.002'],
      [0.000001, '0.000001'],
      [1e-7, '1e-7'],
      [1e21, '1e+21'],
      [1e20, '100000000000000000000'],
      [-0, '0'],
    ];
    for (const [value, text] of cases) expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson(JSON.parse('[4.50, 1E30, 2e-3]'))).toBe('[4.5,1e+30,0.002]');
  });

  it('serialises the IEEE 754 values of RFC 8785 Appendix B as the RFC lists them', () => {
    const appendixB: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [hex, text] of appendixB) expect(canonicalJson(double(hex))).toBe(text);
    expect(() => canonicalJson(double('7fffffffffffffff'))).toThrow(/NaN/);
    expect(() => canonicalJson(double('7ff0000000000000'))).toThrow(/Infinity/);
  });

  it('refuses a lone surrogate, in a value or a key, and says where it is', () => {
    const value = JSON.parse('{"payload":{"tags":["ok","\\ud800"]}}');
    expect(() => canonicalJson(value)).toThrow(/surrogate/i);
    expect(loneSurrogatePath(value)).toBe('payload.tags.1');
    expect(loneSurrogatePath(JSON.parse('{"a":{"\\udc00x":1}}'))).toBe('a.\udc00x');
    expect(loneSurrogatePath({ emoji: '\u{1F600}', hebrew: '\ufb33' })).toBeNull();
  });

  it('keeps the earlier bytes for a stored value with a lone surrogate instead of throwing', () => {
    const stored = JSON.parse('{"10":1,"2":"\\ud800"}');
    expect(storedCanonicalJson(stored)).toBe('{"2":"\\ud800","10":1}');
    expect(storedCanonicalJson({ 10: 1, 2: 'x' })).toBe('{"10":1,"2":"x"}');
  });
});

/** The order RFC 8785 asks for, spelled out without relying on `Array#sort`'s default. */
function byCodeUnits(a: string, b: string): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Canonical JSON by the RFC's definition, written independently of the library. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => byCodeUnits(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const key = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.nat({ max: 2 ** 32 }).map(String), // integer-like keys: JavaScript orders these first
  fc.constantFrom('\r', '1', '\u0080', '\u00f6', '\u20ac', '\u{1F600}', '\ufb33', '\uffff'),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n)),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('canonical JSON properties', () => {
  it('parses back to the value it was made from', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(value);
      }),
    );
  });

  it('orders the keys of every object by UTF-16 code units', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
    );
  });
});
