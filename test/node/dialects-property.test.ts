import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COORDINATION_DERIVED_IDS,
  coordinationPayloads,
} from '../../src/modules/coordination/catalogue';
import {
  type Dialect,
  ENVELOPE_KEY,
  gsdEvents,
  parseAppend,
  runtimeEnvelopeV1,
  Wire,
  wire10,
  wire11,
} from '../../src/protocol';
import { WIRE_TYPE_PATTERN } from '../../src/protocol/wire-type';
import { SENDER_PATTERN, WIRE_ID_PATTERN } from '../../src/protocol/wire11-fast-path';
import { RUNTIME_ENVELOPE_REQUIRED } from '../fixtures/runtime-envelope';

/** Seed 000's catalogue, as the append path passes it from the registry. */
const SEED_000 = { payloads: coordinationPayloads, reserved: COORDINATION_DERIVED_IDS };

/**
 * The dialect law: every envelope a dialect accepts reads back, after decode
 * and encode, as the same JSON (key order aside) — in the dialect's read-back
 * form (Wire 1.1 fills its defaults; Wire 1.0 drops the redundant stream_id).
 * And no body makes a decode throw: an invalid one is a Failure naming the field.
 */

const SID = 'project:p1';
const ctx = {
  streamId: SID,
  sender: 'human:ana',
  newWireId: () => 'wire_01J0000000000000000000000',
};

type Obj = Record<string, unknown>;

/** JSON with sorted keys, own keys only (so a `__proto__` member counts). */
function canon(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canon).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const obj = value as Obj;
    const members = Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(obj[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** As a client's JSON body would arrive (JSON.parse keeps `__proto__` as a member). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function without(obj: Obj, keys: string[]): Obj {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
}

/** Decode, let the sequencer give it `stream_seq`, check it is a valid Wire, encode. */
function readBack(dialect: Dialect, body: unknown): unknown {
  const decoded = dialect.decode(body, ctx);
  if (!decoded.ok) throw new Error(`${dialect.name} refused a valid envelope: ${decoded.detail}`);
  const wire = { ...decoded.draft, stream_seq: decoded.expectedSeq ?? 1 };
  expect(Wire.safeParse(wire).success).toBe(true);
  return dialect.encode(wire);
}

const isoTs = fc
  .tuple(
    fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('Z', '+02:00', '-11:30'),
    fc.boolean(),
  )
  .map(([d, zone, millis]) => {
    const iso = d.toISOString();
    return (millis ? iso.slice(0, -1) : iso.slice(0, 19)) + zone;
  });

const key = (reserved: string[]) =>
  fc
    .oneof(
      fc.string({ maxLength: 10 }),
      fc.constantFrom('__proto__', ENVELOPE_KEY, 'constructor', 'id', 'type', 'payload'),
    )
    .filter((k) => !reserved.includes(k));
const json = fc.jsonValue({ maxDepth: 2 });
const object = (reserved: string[] = []) => fc.dictionary(key(reserved), json, { maxKeys: 4 });
/**
 * Wire 1.1 and 1.0 payloads take zod's copy, which drops a `__proto__` member
 * at any depth — as before dialects (see wire11-fast-path.ts); not generated.
 */
const nativePayload = fc.dictionary(
  key(['__proto__']),
  json.filter((v) => !JSON.stringify(v).includes('"__proto__"')),
  { maxKeys: 4 },
);
const text = (max: number) => fc.string({ minLength: 1, maxLength: max });

const wire11Envelope = fc.record(
  {
    wire: fc.constant('1.1'),
    wire_id: fc.stringMatching(WIRE_ID_PATTERN),
    stream_id: fc.constant(SID),
    stream_seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    correlation_id: fc.option(text(256), { nil: null }),
    causation_id: fc.option(text(256), { nil: null }),
    type: fc.stringMatching(WIRE_TYPE_PATTERN).filter((t) => t.length <= 100),
    sender: fc.stringMatching(SENDER_PATTERN),
    ts: isoTs,
    payload: nativePayload,
  },
  { requiredKeys: ['wire', 'wire_id', 'stream_id', 'type', 'sender', 'ts', 'payload'] },
);

const wire10Envelope = fc.record(
  {
    wire: fc.constant('1.0'),
    stream_id: fc.constant(SID),
    type: fc.stringMatching(WIRE_TYPE_PATTERN).filter((t) => t.length <= 100),
    sender: fc.stringMatching(SENDER_PATTERN),
    ts: isoTs,
    payload: nativePayload,
  },
  { requiredKeys: ['wire', 'type', 'sender', 'ts', 'payload'] },
);

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const oddWord = fc.string({ minLength: 1, maxLength: 8 }).filter((w) => /^[^\s:]+$/.test(w));
const colonType = fc
  .array(fc.oneof(word, oddWord), { minLength: 2, maxLength: 4 })
  .map((words) => words.join(':'));
const GSD_NAMED = ['type', 'timestamp', 'agent'];
const gsdEnvelope = fc
  .tuple(
    fc.record(
      {
        type: colonType,
        timestamp: isoTs,
        agent: fc.stringMatching(/^[A-Za-z0-9._:@-]{1,122}$/),
      },
      { requiredKeys: ['type', 'timestamp'] },
    ),
    object(GSD_NAMED),
  )
  .map(([named, others]) => ({ ...others, ...named }));

const RUNTIME_NAMED = [...RUNTIME_ENVELOPE_REQUIRED, 'taskId', 'branchId', 'workerId'];
const runtimeEnvelope = fc
  .tuple(
    fc.record(
      {
        protocolVersion: fc.constantFrom('1', '1.0', 'v1'),
        messageId: fc.stringMatching(WIRE_ID_PATTERN),
        messageType: fc.oneof(
          fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join('.')),
          text(200),
        ),
        ts: isoTs,
        traceId: text(256),
        channelId: text(40),
        taskId: text(40),
        branchId: text(40),
        workerId: text(40),
        payload: object(),
        extensions: object(),
      },
      { requiredKeys: [...RUNTIME_ENVELOPE_REQUIRED] },
    ),
    object(RUNTIME_NAMED),
  )
  .map(([named, others]) => ({ ...others, ...named }));

interface Case {
  dialect: Dialect;
  envelope: fc.Arbitrary<Obj>;
  /** The read-back form of a valid envelope. */
  readBackForm: (x: Obj) => Obj;
  /** Members a valid envelope must have, and the path a failure names for each. */
  required: string[];
}

const CASES: Case[] = [
  {
    dialect: wire11,
    envelope: wire11Envelope,
    readBackForm: (x) => ({
      ...x,
      stream_seq: x.stream_seq ?? 1,
      correlation_id: x.correlation_id ?? null,
      causation_id: x.causation_id ?? null,
    }),
    required: ['wire', 'wire_id', 'stream_id', 'type', 'sender', 'ts', 'payload'],
  },
  {
    dialect: wire10,
    envelope: wire10Envelope,
    readBackForm: (x) => without(x, ['stream_id']),
    required: ['wire', 'type', 'sender', 'ts', 'payload'],
  },
  {
    dialect: gsdEvents,
    envelope: gsdEnvelope,
    readBackForm: (x) => x,
    required: ['type', 'timestamp'],
  },
  {
    dialect: runtimeEnvelopeV1,
    envelope: runtimeEnvelope,
    readBackForm: (x) => x,
    required: RUNTIME_NAMED.filter((k) => !['taskId', 'branchId', 'workerId'].includes(k)),
  },
];

describe.each(CASES)(
  'the $dialect.name dialect',
  ({ dialect, envelope, readBackForm, required }) => {
    it('reads back every valid envelope as the same JSON', () => {
      fc.assert(
        fc.property(envelope, (x) => {
          const body = asJson(x) as Obj;
          expect(canon(readBack(dialect, body))).toBe(canon(readBackForm(body)));
        }),
        { numRuns: 400 },
      );
    });

    it('refuses an envelope missing a member or with a wrong-typed one, naming it', () => {
      const broken = fc.tuple(
        envelope,
        fc.constantFrom(...required),
        fc.constantFrom(undefined, 42, null, [], true),
      );
      fc.assert(
        fc.property(broken, ([x, member, value]) => {
          const body = asJson(x) as Obj;
          if (value === undefined) delete body[member];
          else body[member] = value;
          const parsed = parseAppend(body, SID, { ...SEED_000, dialect, sender: ctx.sender });
          expect(parsed.ok).toBe(false);
          if (!parsed.ok) {
            expect(parsed.code).toBe('invalid-wire');
            expect(parsed.errors?.map((e) => e.path)).toContain(member);
          }
        }),
        { numRuns: 300 },
      );
    });

    it('never throws, whatever the body: a refusal is a Failure with field paths', () => {
      const anything = fc.anything({
        withBoxedValues: true,
        withMap: true,
        withSet: true,
        withDate: true,
        withNullPrototype: true,
        withSparseArray: true,
        withTypedArray: true,
        withBigInt: true,
      });
      const body = fc.oneof(
        anything,
        json,
        envelope.map((x) => ({ ...x, extra: undefined })),
      );
      fc.assert(
        fc.property(body, (b) => {
          const parsed = parseAppend(b, SID, { ...SEED_000, dialect, sender: ctx.sender });
          if (!parsed.ok && parsed.code === 'invalid-wire') {
            expect(parsed.errors?.length).toBeGreaterThan(0);
            for (const issue of parsed.errors ?? []) expect(issue.path).not.toBe('');
          }
        }),
        { numRuns: 2000 },
      );
    });
  },
);
