import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, untilAnchored } from './helpers/anchoring';
import { post, uniqueStream, wire11 } from './helpers/wires';

/**
 * A wire_id is unique within its stream (the stream dedups on it); two
 * streams may carry the same client-chosen id. Both Wires were accepted, so
 * both must reach HCS, D1 and their proofs — neither may stand in for the other.
 */
describe('the same client-chosen wire_id on two streams', () => {
  async function twoStreams() {
    const project = uniqueStream('project').slice('project:'.length);
    const a = uniqueStream('agent');
    const b = uniqueStream('agent');
    const wireId = `wire_shared_${project}`;
    const correlation_id = `project:${project}`;
    const first = wire11(a, { wire_id: wireId, correlation_id, payload: { concern: 'from a' } });
    const second = wire11(b, { wire_id: wireId, correlation_id, payload: { concern: 'from b' } });
    expect((await post(a, first)).status).toBe(201);
    expect((await post(b, second)).status).toBe(201);
    // Both streams route to the same HCS topic: the project's.
    const topic = `project.${project}`;
    const [onA] = await untilAnchored(a, [topic]);
    const [onB] = await untilAnchored(b, [topic]);
    return { a, b, wireId, topic, onA, onB };
  }

  it('anchors both on the shared topic', async () => {
    const { onA, onB } = await twoStreams();
    expect(onA?.anchor.status).toBe('anchored');
    expect(onB?.anchor.status).toBe('anchored');
    expect(onB?.anchor.hcs_sequence_number).not.toBe(onA?.anchor.hcs_sequence_number);
  });

  it('projects both into D1 and serves each by stream', async () => {
    const { a, b, wireId } = await twoStreams();
    for (let i = 0; i < 100; i++) {
      const n = await env.DB.prepare('SELECT COUNT(*) AS n FROM wire_events WHERE wire_id = ?1')
        .bind(wireId)
        .first<{ n: number }>();
      if (n?.n === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const [stream, concern] of [
      [a, 'from a'],
      [b, 'from b'],
    ] as const) {
      const list = await api(`/v1/wires?stream_id=${stream}`);
      const { wires } = (await list.json()) as { wires: { wire_id: string; payload: unknown }[] };
      expect(wires).toEqual([expect.objectContaining({ wire_id: wireId, payload: { concern } })]);
      const one = await api(`/v1/wires/${wireId}?stream_id=${stream}`);
      expect(one.status).toBe(200);
      expect(await one.json()).toMatchObject({ wire: { stream_id: stream, payload: { concern } } });
      const proof = await api(`/v1/wires/${wireId}/proof?stream_id=${stream}`);
      expect(proof.status).toBe(200);
      const body = (await proof.json()) as { stream_id: string; message: string };
      expect(body.stream_id).toBe(stream);
      expect(JSON.parse(body.message)).toMatchObject({ stream_id: stream, payload: { concern } });
    }
  });

  it('refuses to guess which one a bare wire_id means', async () => {
    const { a, b, wireId } = await twoStreams();
    for (let i = 0; i < 100; i++) {
      const res = await api(`/v1/wires/${wireId}`);
      if (res.status === 409) {
        const body = (await res.json()) as { type: string; detail: string };
        expect(body.type).toMatch(/ambiguous-wire-id$/);
        expect(body.detail).toContain(a);
        expect(body.detail).toContain(b);
        expect(body.detail).toContain('?stream_id=');
        const proof = await api(`/v1/wires/${wireId}/proof`);
        expect(proof.status).toBe(409);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('GET /v1/wires/{id} never answered 409 for an id on two streams');
  });
});
