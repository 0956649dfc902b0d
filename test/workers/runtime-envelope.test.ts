import { env } from 'cloudflare:test';
import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { DIALECT } from '../../src/modules/runtime/envelope';
import { V1_MESSAGE_TYPES } from '../../src/modules/runtime/payloads';
import type { Wire } from '../../src/protocol';
import { canonicalJson } from '../../src/protocol/canonical-json';
import { eventually, rt, session } from './helpers/runtime';

describe('Runtime v1 Envelope dialect', () => {
  it('round-trips every runtime event through the dialect, byte for byte in JSON terms', async () => {
    await session();
    const rows = await eventually(async () => {
      const r = await env.DB.prepare(
        `SELECT '1.1' AS wire, wire_id, stream_id, stream_seq, correlation_id, causation_id, type, sender, ts, payload
           FROM wire_events WHERE type LIKE 'runtime.%' ORDER BY stream_id, stream_seq`,
      ).all<Record<string, string | number | null>>();
      const types = new Set(r.results.map((x) => String(x.type).slice('runtime.'.length)));
      return V1_MESSAGE_TYPES.every((t) => types.has(t)) ? r.results : null;
    }, 20_000);
    const schema = (await rt('GET', '/schema/runtime-envelope-v1.json')).body;
    const validator = new Validator(schema.envelope as Record<string, unknown>, '2020-12', false);
    let checked = 0;
    for (const row of rows) {
      const wire = { ...row, payload: JSON.parse(String(row.payload)) } as unknown as Wire;
      const sent = DIALECT.encode(wire);
      expect(validator.validate(sent).valid).toBe(true);
      // Envelope → Wire → Envelope: what was sent is what is read back.
      const decoded = DIALECT.decode(JSON.parse(JSON.stringify(sent)), {
        streamId: wire.stream_id,
        sender: wire.sender,
        newWireId: () => 'unused',
      });
      if (!decoded.ok) throw new Error(`${wire.type} did not decode: ${decoded.detail}`);
      const { stream_seq: _s, ...draft } = wire;
      expect(canonicalJson(decoded.draft)).toBe(canonicalJson(draft));
      expect(DIALECT.encode({ ...decoded.draft, stream_seq: wire.stream_seq })).toEqual(sent);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('publishes the JSON Schema of the envelope and of the eleven message types', async () => {
    const res = await rt('GET', '/schema/runtime-envelope-v1.json');
    expect(res.status).toBe(200);
    expect(res.res.headers.get('Content-Type')).toBe('application/schema+json');
    expect(res.body.messageTypes).toEqual([...V1_MESSAGE_TYPES]);
    const envelope = res.body.envelope as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(envelope.required.sort()).toEqual(
      [
        'channelId',
        'extensions',
        'messageId',
        'messageType',
        'payload',
        'protocolVersion',
        'traceId',
        'ts',
      ].sort(),
    );
    expect(Object.keys(envelope.properties)).toEqual(
      expect.arrayContaining(['taskId', 'branchId', 'workerId']),
    );
    const payloads = res.body.payloads as Record<string, { 'x-budget-bytes': unknown }>;
    for (const type of V1_MESSAGE_TYPES) expect(payloads[type]?.['x-budget-bytes']).toBeTruthy();
  });
});
