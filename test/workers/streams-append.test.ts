import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { post, problemOf, readAll, uniqueStream, wire11 } from './helpers/wires';

describe('appending Wires to a stream', () => {
  it('assigns stream_seq 1..100 exactly to 100 concurrent appends', async () => {
    const stream = uniqueStream();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => post(stream, wire11(stream))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(201));
    const seqs = (
      await Promise.all(responses.map((r) => r.json() as Promise<{ stream_seq: number }>))
    )
      .map((r) => r.stream_seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const stored = await readAll(stream);
    expect(stored.map((w) => w.stream_seq)).toEqual(seqs);
  });

  it('returns a receipt with the assigned seq and receive time', async () => {
    const stream = uniqueStream();
    const body = wire11(stream);
    const res = await post(stream, body);
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    const receipt = (await res.json()) as Record<string, unknown>;
    expect(receipt).toMatchObject({ wire_id: body.wire_id, stream_id: stream, stream_seq: 1 });
    expect(Date.parse(String(receipt.received_at))).not.toBeNaN();
  });

  it('replays the original receipt when the same Wire is sent again', async () => {
    const stream = uniqueStream();
    const body = wire11(stream);
    const first = await post(stream, body);
    await post(stream, wire11(stream));
    // Same content, keys in another order: still the same Wire.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(stream, reordered);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect((await readAll(stream)).length).toBe(2);
  });

  it('refuses a reused wire_id with different content with 409', async () => {
    const stream = uniqueStream();
    const body = wire11(stream);
    await post(stream, body);
    const res = await post(stream, { ...body, payload: { concern: 'something else' } });
    expect(res.status).toBe(409);
    const problem = await problemOf(res);
    expect(problem.type).toBe('/problems/wire-id-conflict');
    expect(problem.detail).toContain(body.wire_id);
    expect(problem.stream_seq).toBe(1);
    expect((await readAll(stream)).length).toBe(1);
  });

  it('refuses a stale If-Match with 412 and the current stream_seq', async () => {
    const stream = uniqueStream();
    expect((await post(stream, wire11(stream), { 'If-Match': '"0"' })).status).toBe(201);
    expect((await post(stream, wire11(stream), { 'If-Match': '"1"' })).status).toBe(201);
    const stale = await post(stream, wire11(stream), { 'If-Match': '"1"' });
    expect(stale.status).toBe(412);
    const problem = await problemOf(stale);
    expect(problem.type).toBe('/problems/stale-stream');
    expect(problem.current_seq).toBe(2);
    expect((await readAll(stream)).length).toBe(2);
  });

  it('treats a stream_seq in the body as the expected next seq', async () => {
    const stream = uniqueStream();
    expect((await post(stream, wire11(stream, { stream_seq: 1 }))).status).toBe(201);
    const res = await post(stream, wire11(stream, { stream_seq: 5 }));
    expect(res.status).toBe(412);
    expect((await problemOf(res)).detail).toContain('next stream_seq is 2');
  });

  it('upgrades a Wire 1.0 envelope: server-assigned sortable wire_id, stream from the path', async () => {
    const stream = uniqueStream();
    const v10 = {
      wire: '1.0',
      type: 'review.concern',
      sender: 'agent:ana',
      ts: '2026-05-01T15:12:03Z',
      payload: { concern: 'x' },
    };
    const a = (await (await post(stream, v10)).json()) as { wire_id: string };
    const b = (await (await post(stream, v10)).json()) as { wire_id: string };
    expect(a.wire_id).toMatch(/^wire_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(b.wire_id > a.wire_id).toBe(true);
    const [stored] = await readAll(stream);
    expect(stored).toMatchObject({
      wire: '1.1',
      stream_id: stream,
      stream_seq: 1,
      correlation_id: null,
      causation_id: null,
      type: 'review.concern',
    });
  });

  it('describes a stream: last seq, last type, count, created and updated', async () => {
    const stream = uniqueStream();
    await post(stream, wire11(stream));
    await post(stream, wire11(stream, { type: 'contract.ready', payload: { contract: 'auth' } }));
    const res = await SELF.fetch(`https://ws.test/v1/streams/${stream}`, {
      headers: await authHeaders(),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      stream_id: stream,
      last_seq: 2,
      last_type: 'contract.ready',
      count: 2,
    });
    const missing = await SELF.fetch(`https://ws.test/v1/streams/${uniqueStream()}`, {
      headers: await authHeaders(),
    });
    expect(missing.status).toBe(404);
  });

  it('pages a stream in order with after_seq and limit', async () => {
    const stream = uniqueStream();
    for (let i = 0; i < 5; i++) await post(stream, wire11(stream));
    const res = await SELF.fetch(`https://ws.test/v1/streams/${stream}/wires?after_seq=1&limit=2`, {
      headers: await authHeaders(),
    });
    const page = (await res.json()) as {
      wires: { stream_seq: number }[];
      next_after_seq: number | null;
      last_seq: number;
    };
    expect(page.wires.map((w) => w.stream_seq)).toEqual([2, 3]);
    expect(page.next_after_seq).toBe(3);
    expect(page.last_seq).toBe(5);
  });
});
