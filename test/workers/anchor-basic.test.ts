import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, mirrorMessages, untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { post, uniqueStream, wire11 } from './helpers/wires';

describe('HCS anchoring', () => {
  it('anchors an appended Wire with the receipt data of the real SDK', async () => {
    const streamId = uniqueStream('project');
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const topic = `project.${streamId.slice('project:'.length)}`;
    const [wire] = await untilAnchored(streamId, [topic]);
    expect(wire?.anchor).toMatchObject({ status: 'anchored', topic, hcs_sequence_number: 1 });
    expect(wire?.anchor.hcs_topic_id).toMatch(/^0\.0\.\d+$/);
    expect(wire?.anchor.consensus_timestamp).toMatch(/^\d+\.\d{9}$/);
    expect(atob(wire?.anchor.running_hash ?? '')).toHaveLength(48);
    const [message] = await mirrorMessages(wire?.anchor.hcs_topic_id ?? '');
    expect(message?.running_hash).toBe(wire?.anchor.running_hash);
    expect(JSON.parse(atob(message?.message ?? ''))).toMatchObject({
      wire_id: body.wire_id,
      stream_seq: 1,
    });
  });

  it('tells live subscribers when their Wires are anchored', async () => {
    const streamId = uniqueStream('project');
    const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/ws?after_seq=0`, {
      headers: { Upgrade: 'websocket', ...(await authHeaders()) },
    });
    const ws = res.webSocket;
    if (!ws) throw new Error('no websocket');
    ws.accept();
    const frames: { kind: string; wires?: { stream_seq: number; anchor: { status: string } }[] }[] =
      [];
    ws.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data))));
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    await untilAnchored(streamId, [`project.${streamId.slice('project:'.length)}`]);
    for (let i = 0; i < 50 && !frames.some((f) => f.kind === 'anchored'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const live = frames.find((f) => f.kind === 'wires');
    expect(live?.wires?.[0]?.anchor.status).toBe('pending');
    const anchored = frames.find((f) => f.kind === 'anchored');
    expect(anchored?.wires?.[0]).toMatchObject({ stream_seq: 1, anchor: { status: 'anchored' } });
    ws.close(1000, 'done');
  });

  it('proves a Wire by id: topic, sequence, time, running hash and the mirror URL', async () => {
    const streamId = uniqueStream('project');
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const [wire] = await untilAnchored(streamId, [`project.${streamId.slice('project:'.length)}`]);
    const proof = (await (await api(`/v1/wires/${body.wire_id}/proof`)).json()) as Record<
      string,
      unknown
    >;
    expect(proof).toMatchObject({
      wire_id: body.wire_id,
      stream_seq: 1,
      network: 'local',
      hcs_topic_id: wire?.anchor.hcs_topic_id,
      hcs_sequence_number: 1,
      consensus_timestamp: wire?.anchor.consensus_timestamp,
      running_hash: wire?.anchor.running_hash,
      hashscan_url: null,
    });
    const mirror = await fetch(String(proof.mirror_url));
    const message = (await mirror.json()) as { message: string; running_hash: string };
    expect(atob(message.message)).toBe(proof.message);
    expect(message.running_hash).toBe(proof.running_hash);
    const missing = await api('/v1/wires/wire_nope/proof');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
  });
});
