import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { WIRE_FIELDS } from '../../src/protocol/wire11-fast-path';
import { authHeaders } from './helpers/auth';
import { post, problemOf, readAll, uniqueStream, wire11 } from './helpers/wires';

/** Each rule answers with a precise problem+json and stores nothing. */
async function expectRejected(
  stream: string,
  res: Response,
  status: number,
  type: string,
  detail: RegExp | string,
) {
  expect(res.status).toBe(status);
  const problem = await problemOf(res);
  expect(problem.type).toBe(type);
  expect(problem.status).toBe(status);
  if (typeof detail === 'string') expect(problem.detail).toContain(detail);
  else expect(problem.detail).toMatch(detail);
  expect(await readAll(stream)).toEqual([]);
  return problem;
}

/** A Wire 1.1 with `overrides`, appended to `stream`, refused with 422 invalid-wire: as expectRejected. */
async function expectInvalidWire(
  stream: string,
  overrides: Record<string, unknown>,
  detail: RegExp | string,
) {
  const res = await post(stream, wire11(stream, overrides));
  return expectRejected(stream, res, 422, '/problems/invalid-wire', detail);
}

const claim = {
  task_id: '0.0.9001',
  agent: 'quinn-07',
  role: 'developer',
  lease_expires_at: '2026-05-01T16:30:00Z',
};

describe('validation of appended Wires', () => {
  it('rejects malformed JSON with 400', async () => {
    const s = uniqueStream();
    await expectRejected(
      s,
      await post(s, '{"wire": "1.1",'),
      400,
      '/problems/malformed-json',
      'not valid JSON',
    );
  });

  it('rejects a body that is not JSON with 415', async () => {
    const s = uniqueStream();
    const res = await SELF.fetch(`https://ws.test/v1/streams/${s}/wires`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', ...(await authHeaders()) },
      body: JSON.stringify(wire11(s)),
    });
    await expectRejected(s, res, 415, '/problems/unsupported-media-type', 'text/plain');
  });

  it('rejects an envelope over the 8 KiB limit with 413 naming the limit', async () => {
    const s = uniqueStream();
    const big = wire11(s, { payload: { concern: 'x'.repeat(9000) } });
    const problem = await expectRejected(
      s,
      await post(s, big),
      413,
      '/problems/envelope-too-large',
      'the limit is 8192 bytes',
    );
    expect(problem.limit_bytes).toBe(8192);
  });

  it('rejects a missing envelope field with 422 naming it', async () => {
    const s = uniqueStream();
    const { sender: _omit, ...noSender } = wire11(s);
    const problem = await expectRejected(
      s,
      await post(s, noSender),
      422,
      '/problems/invalid-wire',
      'sender',
    );
    expect(problem.errors?.[0]?.path).toBe('sender');
  });

  it('reserves the wire_id kinds the coordinator derives (offer:, feed:, expired:, …)', async () => {
    const s = uniqueStream();
    for (const wireId of [
      'offer:t1:2',
      'feed:task:t1:attempt:1:1',
      'expired:task:t1:attempt:1:1.2',
    ]) {
      await expectInvalidWire(
        s,
        { wire_id: wireId },
        `wire_id: wire_id "${wireId}" starts with "${wireId.split(':')[0]}:", which is reserved for Wires the coordinator derives`,
      );
    }
    // Only the kind followed by ':' is reserved.
    expect((await post(s, wire11(s, { wire_id: 'offer-9001' }))).status).toBe(201);
  });

  it('rejects unknown envelope fields', async () => {
    const s = uniqueStream();
    await expectInvalidWire(s, { colour: 'red' }, 'colour');
  });

  it('rejects an unsupported wire version', async () => {
    const s = uniqueStream();
    await expectInvalidWire(s, { wire: '2.0' }, 'wire must be "1.1"');
  });

  it.each([
    ['Task.Claimed', 'dotted lowercase'],
    ['claimed', 'dotted lowercase'],
    ['task..claimed', 'dotted lowercase'],
  ])('rejects the malformed type name %s', async (type, detail) => {
    const s = uniqueStream();
    await expectInvalidWire(s, { type }, detail);
  });

  it('accepts other dotted lowercase types with an object payload', async () => {
    const s = uniqueStream();
    const res = await post(
      s,
      wire11(s, { type: 'design.note.added', payload: { anything: [1, 2] } }),
    );
    expect(res.status).toBe(201);
  });

  it('rejects a payload that is not an object', async () => {
    const s = uniqueStream();
    await expectInvalidWire(s, { payload: [1, 2] }, 'payload');
  });

  it('checks known payloads field by field', async () => {
    const stream = `task:${uniqueStream('x').slice(2)}:attempt:1`;
    const { lease_expires_at: _l, ...noLease } = claim;
    const problem = await expectRejected(
      stream,
      await post(stream, wire11(stream, { type: 'task.claimed', payload: noLease })),
      422,
      '/problems/invalid-wire',
      'payload.lease_expires_at',
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(['payload.lease_expires_at']);
  });

  it('accepts Level 1 task.claim with the task.claimed payload', async () => {
    const stream = `task:${uniqueStream('x').slice(2)}:attempt:1`;
    const payload = { ...claim, task_id: stream.split(':')[1] };
    const res = await post(stream, wire11(stream, { type: 'task.claim', payload }));
    // Valid as a Wire, so it reaches the coordinator, which refuses it for a
    // task never offered (coordination-claims.test.ts covers winning claims).
    await expectRejected(stream, res, 409, '/problems/task-not-available', 'has not been offered');
  });

  it('rejects artifacts sent inline instead of by reference', async () => {
    const s = uniqueStream('artifact');
    const payload = {
      artifact_type: 'migration',
      artifact_ref: 'r2://runs/005.sql',
      sha256: 'a'.repeat(64),
      content: 'CREATE TABLE …',
    };
    await expectInvalidWire(s, { type: 'artifact.ready', payload }, 'by reference');
  });

  it('requires a 64-hex sha256 with every artifact_ref', async () => {
    const s = uniqueStream('artifact');
    const payload = { artifact_type: 'migration', artifact_ref: 'r2://x', sha256: 'abc123' };
    await expectInvalidWire(s, { type: 'artifact.ready', payload }, '64 lowercase hex');
    await expectInvalidWire(
      s,
      { type: 'custom.thing', payload: { artifact_ref: 'r2://y' } },
      'sha256',
    );
  });

  it('rejects a stream_id in the body that differs from the path with 400', async () => {
    const s = uniqueStream();
    await expectRejected(
      s,
      await post(s, wire11('project:other')),
      400,
      '/problems/stream-id-mismatch',
      'project:other',
    );
  });

  it.each([
    ['task:42', 'task:<task_id>:attempt:<n>'],
    ['task:42:attempt:0', 'positive integer'],
    ['project:', 'project:<id>'],
    ['Project:x', '<kind>:<id>'],
    ['nocolon', '<kind>:<id>'],
  ])('rejects the malformed stream id %s in the path', async (stream, detail) => {
    const res = await post(stream, wire11(stream));
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.type).toBe('/problems/invalid-stream-id');
    expect(problem.detail).toContain(detail);
  });

  it('rejects an invalid timestamp and sender', async () => {
    const s = uniqueStream();
    await expectInvalidWire(s, { ts: 'yesterday' }, 'ts must be an ISO 8601');
    await expectInvalidWire(s, { sender: 'bad sender!' }, 'sender must be');
  });

  it('rejects a malformed If-Match and bad paging parameters with 400', async () => {
    const s = uniqueStream();
    await expectRejected(
      s,
      await post(s, wire11(s), { 'If-Match': 'seven' }),
      400,
      '/problems/invalid-header',
      'If-Match',
    );
    for (const query of ['after_seq=-1', 'after_seq=abc', 'limit=0', 'limit=5000']) {
      const res = await SELF.fetch(`https://ws.test/v1/streams/${s}/wires?${query}`, {
        headers: await authHeaders(),
      });
      expect(res.status).toBe(400);
      expect((await problemOf(res)).type).toBe('/problems/invalid-query');
    }
  });

  it('answers unknown routes with a problem+json 404', async () => {
    const res = await SELF.fetch('https://ws.test/v1/nothing-here', {
      headers: await authHeaders(),
    });
    expect(res.status).toBe(404);
    expect((await problemOf(res)).detail).toContain('/v1/nothing-here');
  });

  it('serves the JSON Schema of the envelope and every known payload', async () => {
    const res = await SELF.fetch('https://ws.test/v1/schema/wire.json');
    expect(res.status).toBe(200);
    const schema = (await res.json()) as {
      wire: { properties: Record<string, unknown>; required: string[] };
      payloads: Record<string, { required?: string[] }>;
    };
    expect(Object.keys(schema.wire.properties)).toEqual(expect.arrayContaining([...WIRE_FIELDS]));
    expect(schema.payloads['task.claimed']?.required).toEqual(
      expect.arrayContaining(['task_id', 'agent', 'role', 'lease_expires_at']),
    );
    expect(schema.payloads['agent.capacity.updated']?.required).toEqual([
      'available_units',
      'max_units',
    ]);
  });
});
