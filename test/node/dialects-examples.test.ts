import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  COORDINATION_DERIVED_IDS,
  coordinationPayloads,
} from '../../src/modules/coordination/catalogue';
import {
  DIALECTS,
  type Dialect,
  dialectJsonSchema,
  ENVELOPE_KEY,
  gsdEvents,
  type JsonObject,
  parseAppend,
  runtimeEnvelopeV1,
  type Wire,
} from '../../src/protocol';
import { SEED_EVENTS } from '../fixtures/gsd-seed-events';
import { RUNTIME_ENVELOPE_REQUIRED } from '../fixtures/runtime-envelope';

/** Seed 000's catalogue, as the append path passes it from the registry. */
const SEED_000 = { payloads: coordinationPayloads, reserved: COORDINATION_DERIVED_IDS };

const mint = () => 'wire_01J0000000000000000000000';

/** Decode through the append path, give it a seq, encode back. */
function roundTrip(dialect: Dialect, body: unknown, streamId: string, sender?: string) {
  const parsed = parseAppend(body, streamId, { ...SEED_000, dialect, sender, newWireId: mint });
  if (!parsed.ok) throw new Error(parsed.detail);
  const wire: Wire = { ...parsed.draft, stream_seq: parsed.expectedSeq ?? 1 };
  return { wire, back: dialect.encode(wire) };
}

/** Every event of seed 004's examples, as written there. */
// The fixture is `as const`; the round trip wants plain JSON objects.
const SEED_004_EVENTS = Object.values(SEED_EVENTS) as unknown as JsonObject[];

describe('the GSD colon-event dialect (seed 004)', () => {
  it('given task:started, when decoded, then it is a gsd.task.started Wire from the agent it names', () => {
    // Given
    const event = SEED_004_EVENTS[0];
    // When
    const { wire } = roundTrip(gsdEvents, event, 'project:gsd-1', 'agent:gsd-executor');
    // Then
    expect(wire).toStrictEqual({
      wire: '1.1',
      wire_id: mint(),
      stream_id: 'project:gsd-1',
      stream_seq: 1,
      correlation_id: null,
      causation_id: null,
      type: 'gsd.task.started',
      sender: 'agent:gsd-executor',
      ts: '2024-01-15T10:30:00Z',
      payload: { agent: 'gsd-executor', plan: '01-02', task: 1, taskName: 'Create User model' },
    });
  });

  it.each(SEED_004_EVENTS.map((e) => [e.type, e]))(
    'reads back the seed example %s exactly as written',
    (_type, event) => {
      const { wire, back } = roundTrip(gsdEvents, event, 'project:gsd-1', 'human:ana');
      expect(back).toStrictEqual(event);
      expect(ENVELOPE_KEY in wire.payload).toBe(false); // nothing extra for the common case
    },
  );

  it('given an event without an agent, then the authenticated sender is its sender', () => {
    const { wire } = roundTrip(gsdEvents, SEED_004_EVENTS[3], 'project:gsd-1', 'human:ana');
    expect(wire.sender).toBe('human:ana');
  });

  it('given an event without an agent and no authenticated sender, then it is refused naming agent', () => {
    const parsed = parseAppend(SEED_004_EVENTS[3], 'project:gsd-1', {
      ...SEED_000,
      dialect: gsdEvents,
    });
    expect(parsed).toMatchObject({ ok: false, code: 'invalid-wire', errors: [{ path: 'agent' }] });
  });

  it('accepts an unknown colon type with an object body and reads it back', () => {
    const event = { type: 'review:requested', reviewer: 'ana', timestamp: '2024-01-15T12:00:00Z' };
    const { wire, back } = roundTrip(gsdEvents, event, 'project:gsd-1', 'human:ana');
    expect(wire.type).toBe('gsd.review.requested');
    expect(back).toStrictEqual(event);
  });

  it('keeps a colon type with no Wire form verbatim under $envelope', () => {
    const event = { type: 'Task:Started', note: 'x', timestamp: '2024-01-15T12:00:00Z' };
    const { wire, back } = roundTrip(gsdEvents, event, 'project:gsd-1', 'human:ana');
    expect(wire.type).toBe('gsd.verbatim');
    expect(wire.payload).toStrictEqual({ note: 'x', [ENVELOPE_KEY]: { type: 'Task:Started' } });
    expect(back).toStrictEqual(event);
  });

  it('keeps a member that is itself named $envelope', () => {
    const event = { type: 'a:b', [ENVELOPE_KEY]: { mine: 1 }, timestamp: '2024-01-15T12:00:00Z' };
    expect(roundTrip(gsdEvents, event, 'project:gsd-1', 'human:ana').back).toStrictEqual(event);
  });

  it.each([
    [{ agent: 'a', timestamp: '2024-01-15T12:00:00Z' }, 'type'],
    [{ type: 'task.started', timestamp: '2024-01-15T12:00:00Z' }, 'type'],
    [{ type: 'task:started' }, 'timestamp'],
    [{ type: 'task:started', timestamp: 'yesterday' }, 'timestamp'],
    [{ type: 'task:started', timestamp: '2024-01-15T12:00:00Z', agent: 'a b' }, 'agent'],
    [['task:started'], '(envelope)'],
  ])('refuses %j naming %s and stores nothing', (event, path) => {
    const parsed = parseAppend(event, 'project:gsd-1', {
      ...SEED_000,
      dialect: gsdEvents,
      sender: 'human:ana',
    });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.errors?.map((e) => e.path)).toContain(path);
  });

  it('names the event’s own field when its payload schema refuses it', () => {
    // Given a catalogue where gsd.task.started needs a string plan
    const payloads = (type: string) =>
      type === 'gsd.task.started' ? z.looseObject({ plan: z.string() }) : undefined;
    // When an event carries a number
    const event = { ...SEED_004_EVENTS[0], plan: 12 };
    const parsed = parseAppend(event, 'project:gsd-1', {
      ...SEED_000,
      dialect: gsdEvents,
      payloads,
    });
    // Then the path is `plan`, as the client wrote it
    expect(parsed).toMatchObject({ ok: false, code: 'invalid-wire', errors: [{ path: 'plan' }] });
  });

  it('leaves Wire 1.1 clients with dotted types: a colon type posted as Wire 1.1 is still refused', () => {
    const parsed = parseAppend(
      {
        wire: '1.1',
        wire_id: 'w-1',
        stream_id: 'project:p1',
        type: 'task:started',
        sender: 'agent:a',
        ts: '2026-05-01T16:00:00Z',
        payload: {},
      },
      'project:p1',
      SEED_000,
    );
    expect(parsed).toMatchObject({ ok: false, errors: [{ path: 'type' }] });
  });
});

const ENVELOPE = {
  protocolVersion: '1',
  messageId: '01JRT0000000000000000000AA',
  messageType: 'worker.spawned',
  ts: '2026-03-03T10:00:00.000Z',
  traceId: 'trace-7',
  channelId: 'ch-1',
  workerId: 'wk-3',
  payload: { mode: 'interactive', toolset: ['shell', 'git'] },
  extensions: {},
};

describe('the Runtime v1 envelope dialect (seed 003)', () => {
  it('given an Envelope v1, when decoded, then messageId is the wire_id and traceId the correlation', () => {
    const { wire } = roundTrip(runtimeEnvelopeV1, ENVELOPE, 'channel:ch-1', 'agent:runtime');
    expect(wire).toStrictEqual({
      wire: '1.1',
      wire_id: '01JRT0000000000000000000AA',
      stream_id: 'channel:ch-1',
      stream_seq: 1,
      correlation_id: 'trace-7',
      causation_id: null,
      type: 'runtime.worker.spawned',
      sender: 'agent:runtime',
      ts: '2026-03-03T10:00:00.000Z',
      payload: {
        mode: 'interactive',
        toolset: ['shell', 'git'],
        [ENVELOPE_KEY]: {
          protocolVersion: '1',
          channelId: 'ch-1',
          workerId: 'wk-3',
          extensions: {},
        },
      },
    });
  });

  it('reads back an envelope with unknown members exactly as sent', () => {
    const sent = { ...ENVELOPE, priority: 'high', extensions: { 'x-team': { a: [1, null] } } };
    expect(roundTrip(runtimeEnvelopeV1, sent, 'channel:ch-1', 'agent:runtime').back).toStrictEqual(
      sent,
    );
  });

  it('keeps a messageType with no Wire form verbatim', () => {
    const sent = { ...ENVELOPE, messageType: 'Worker/Spawned' };
    const { wire, back } = roundTrip(runtimeEnvelopeV1, sent, 'channel:ch-1', 'agent:runtime');
    expect(wire.type).toBe('runtime.verbatim');
    expect(back).toStrictEqual(sent);
  });

  it.each([
    ['channelId', { ...ENVELOPE, channelId: undefined }],
    ['messageId', { ...ENVELOPE, messageId: 'has space' }],
    ['payload', { ...ENVELOPE, payload: [1] }],
    ['extensions', { ...ENVELOPE, extensions: undefined }],
    ['ts', { ...ENVELOPE, ts: 1709460000000 }],
  ])('refuses an envelope with a bad %s, naming it', (path, body) => {
    const parsed = parseAppend(JSON.parse(JSON.stringify(body)), 'channel:ch-1', {
      ...SEED_000,
      dialect: runtimeEnvelopeV1,
      sender: 'agent:runtime',
    });
    expect(!parsed.ok && parsed.errors?.map((e) => e.path)).toContain(path);
  });

  it('refuses a messageId the coordinator reserves, naming messageId', () => {
    const parsed = parseAppend({ ...ENVELOPE, messageId: 'offer:t1:1' }, 'channel:ch-1', {
      ...SEED_000,
      dialect: runtimeEnvelopeV1,
      sender: 'agent:runtime',
    });
    expect(parsed).toMatchObject({ ok: false, errors: [{ path: 'messageId' }] });
  });

  it('refuses an envelope when the request names no sender', () => {
    const parsed = parseAppend(ENVELOPE, 'channel:ch-1', {
      ...SEED_000,
      dialect: runtimeEnvelopeV1,
    });
    expect(parsed).toMatchObject({
      ok: false,
      code: 'invalid-wire',
      errors: [{ path: '(envelope)' }],
    });
  });
});

describe('dialect JSON Schemas', () => {
  it('publishes a JSON Schema for every dialect', () => {
    for (const dialect of DIALECTS) {
      const schema = dialectJsonSchema(dialect.name);
      expect(schema?.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(JSON.parse(JSON.stringify(schema))).toStrictEqual(schema);
    }
    expect(dialectJsonSchema('no-such-dialect')).toBeNull();
  });

  it('describes the foreign envelopes’ required members and keeps them open', () => {
    const gsd = dialectJsonSchema('gsd-events');
    expect(gsd?.required).toEqual(['type', 'timestamp']);
    expect(gsd?.additionalProperties).toBeTruthy();
    const runtime = dialectJsonSchema('runtime-envelope-v1');
    expect(runtime?.required).toEqual(RUNTIME_ENVELOPE_REQUIRED);
  });
});
