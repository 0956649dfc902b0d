import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectNothingStored, expectProblem } from './helpers/attack';
import { authHeaders } from './helpers/auth';
import { post, uniqueStream, wire11 } from './helpers/wires';

const at = (path: string, init: RequestInit = {}) => SELF.fetch(`https://ws.test${path}`, init);

describe('one rule for identifier-like fields', () => {
  const UNSAFE: [name: string, value: string, shown: string][] = [
    ['NUL', 'kv\u0000m02', 'U+0000'],
    ['BEL', 'kv\u0007m02', 'U+0007'],
    ['a right-to-left override', 'kv\u202Em02', 'U+202E'],
    ['a bidi isolate', 'kv\u2066m02', 'U+2066'],
    ['a lone surrogate', 'kv\uD800m02', 'lone UTF-16 surrogate'],
  ];
  it.each(UNSAFE)('refuses %s in correlation_id, naming the field', async (_n, value, shown) => {
    const s = uniqueStream();
    const res = await post(s, wire11(s, { correlation_id: value }));
    const problem = await expectProblem(res, 422, 'invalid-wire');
    expect(problem.errors?.map((e) => e.path)).toEqual(['correlation_id']);
    expect(problem.detail).toContain(shown);
    await expectNothingStored(s);
  });

  it('refuses a bidi override in causation_id and in a payload id', async () => {
    const s = uniqueStream();
    const a = await post(s, wire11(s, { causation_id: 'w\u202Egnp.exe' }));
    expect((await expectProblem(a, 422, 'invalid-wire')).errors?.[0]?.path).toBe('causation_id');
    const b = await post(s, wire11(s, { payload: { concern: 'x', ref_id: 'a\u202Eb' } }));
    expect((await expectProblem(b, 422, 'invalid-wire')).errors?.[0]?.path).toBe('payload.ref_id');
    await expectNothingStored(s);
  });

  it('still accepts ordinary text and non-ASCII letters in identifiers and prose', async () => {
    const s = uniqueStream();
    const res = await post(
      s,
      wire11(s, { correlation_id: 'projekt:größe-日本', payload: { concern: 'tab\there\nok' } }),
    );
    expect(res.status).toBe(201);
  });
});

describe('input rules applied everywhere', () => {
  it.each(['utf-16', 'latin1', 'iso-8859-1'])(
    'refuses Content-Type charset=%s with 415',
    async (charset) => {
      const s = uniqueStream();
      const res = await post(s, wire11(s), {
        'Content-Type': `application/json; charset=${charset}`,
      });
      const problem = await expectProblem(res, 415, 'unsupported-media-type');
      expect(problem.detail).toContain(`charset must be utf-8`);
      await expectNothingStored(s);
    },
  );

  it('accepts charset=utf-8', async () => {
    const s = uniqueStream();
    const res = await post(s, wire11(s), { 'Content-Type': 'application/json; charset=UTF-8' });
    expect(res.status).toBe(201);
  });

  it('POST /v1/tickets refuses a body that is not JSON, and takes none or {}', async () => {
    const headers = await authHeaders('human:ana', ['read']);
    const bad = await at('/v1/tickets', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/plain' },
      body: 'give me a ticket',
    });
    await expectProblem(bad, 415, 'unsupported-media-type');
    const extra = await at('/v1/tickets', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{"for":"stream"}',
    });
    const problem = await expectProblem(extra, 422, 'invalid-body');
    expect(problem.detail).toContain('for');
    for (const body of [undefined, '{}']) {
      const ok = await at('/v1/tickets', {
        method: 'POST',
        headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      expect(ok.status).toBe(201);
    }
  });

  it.each([['../'], ['/'], ['project:../x'], ['.hidden']])(
    'POST /v1/tokens refuses the stream prefix %s',
    async (prefix) => {
      const res = await at('/v1/tokens', {
        method: 'POST',
        headers: { ...(await authHeaders()), 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: 'agent:x', scopes: ['read'], streams: [prefix] }),
      });
      const problem = await expectProblem(res, 422, 'invalid-body');
      expect(problem.errors?.[0]?.path).toBe('streams.0');
    },
  );

  it('POST /v1/tokens still takes prefixes of stream ids', async () => {
    const res = await at('/v1/tokens', {
      method: 'POST',
      headers: { ...(await authHeaders()), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        sub: 'agent:x',
        scopes: ['read'],
        streams: ['project:', 'task:T-1:', 'agent', 'note:a.b'],
      }),
    });
    expect(res.status).toBe(201);
  });

  it.each([
    ['an unknown parameter', '?after_seq=0&limt=5', 'limt'],
    ['a repeated parameter', '?limit=5&limit=500', 'limit'],
  ])('GET …/wires refuses %s with 400 like the D1 reads', async (_n, query, name) => {
    const s = uniqueStream();
    const res = await at(`/v1/streams/${s}/wires${query}`, { headers: await authHeaders() });
    const problem = await expectProblem(res, 400, 'invalid-query');
    expect(problem.detail).toContain(name);
  });

  it('the D1 reads refuse a repeated parameter too', async () => {
    const res = await at('/v1/wires?limit=5&limit=6', { headers: await authHeaders() });
    const problem = await expectProblem(res, 400, 'invalid-query');
    expect(problem.detail).toContain('limit');
  });

  it('GET …/ws refuses an unknown parameter but takes ?ticket=', async () => {
    const s = uniqueStream();
    const res = await at(`/v1/streams/${s}/ws?after_seq=0&bogus=1`, {
      headers: await authHeaders(),
    });
    expect((await expectProblem(res, 400, 'invalid-query')).detail).toContain('bogus');
  });

  it('PUT …/topic refuses unknown fields', async () => {
    const s = uniqueStream();
    const res = await at(`/v1/streams/${s}/topic`, {
      method: 'PUT',
      headers: { ...(await authHeaders()), 'Content-Type': 'application/json' },
      body: JSON.stringify({ topic: 'dedicated', mode: 'fast' }),
    });
    const problem = await expectProblem(res, 422, 'invalid-body');
    expect(problem.detail).toContain('mode');
  });

  it('refuses inline content beside an artifact reference on any type', async () => {
    const s = uniqueStream();
    const payload = { artifact_ref: 'r2://a/spec.md', sha256: 'e'.repeat(64), content: 'inline' };
    const res = await post(s, wire11(s, { type: 'agent.note', payload }));
    const problem = await expectProblem(res, 422, 'invalid-wire');
    expect(problem.errors?.map((e) => e.path)).toEqual(['payload.content']);
    await expectNothingStored(s);
  });
});
