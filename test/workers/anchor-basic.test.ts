import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { draftOf } from '../../src/kernel/append';
import { REGISTRY } from '../../src/modules';
import { streamStub } from '../../src/stream/stub';
import {
  anchorsBesideMirror,
  api,
  mirrorMessages,
  standinUrl,
  untilAnchored,
} from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { post, uniqueStream, wire11 } from './helpers/wires';

type Told = { wire_id?: string; stream_seq: number; anchor: { status: string } };
type Frame = { kind: string; wires?: Told[]; anchored?: Told[] };

/** `GET …/ws?<query>` on a stream, as a WebSocket upgrade (a 4xx comes back as is). */
async function openWs(streamId: string, query: string): Promise<Response> {
  return SELF.fetch(`https://ws.test/v1/streams/${streamId}/ws?${query}`, {
    headers: { Upgrade: 'websocket', ...(await authHeaders()) },
  });
}

/** A live socket on the stream, collecting every frame it receives. */
async function follow(streamId: string, query = 'after_seq=0') {
  const ws = (await openWs(streamId, query)).webSocket;
  if (!ws) throw new Error('no websocket');
  ws.accept();
  const frames: Frame[] = [];
  ws.addEventListener('message', (e) => {
    frames.push(JSON.parse(String(e.data)));
  });
  return { ws, frames };
}

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

  it('anchors on a topic whose name is long: its memo is written as production writes it', async () => {
    // The topic memo is "wirestream <name>": 40 characters and more took a
    // path of protobufjs that workerd's Buffer refuses, and the topic was
    // never created. Names that long are ordinary (project ids, runs).
    const streamId = `${uniqueStream('project')}-a-long-project-name-${'x'.repeat(60)}`;
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const topic = `project.${streamId.slice('project:'.length)}`;
    const [wire] = await untilAnchored(streamId, [topic]);
    expect(wire?.anchor).toMatchObject({ status: 'anchored', topic, hcs_sequence_number: 1 });
    const info = await fetch(`${standinUrl()}/api/v1/topics/${wire?.anchor.hcs_topic_id}`);
    expect(((await info.json()) as { memo: string }).memo).toBe(
      `wirestream ${topic}`.slice(0, 100),
    );
  });

  it('tells live subscribers when their Wires are anchored', async () => {
    const streamId = uniqueStream('project');
    const { ws, frames } = await follow(streamId);
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

  it("tells a busy stream's subscribers in the next wires frame, without frames of their own", async () => {
    const streamId = uniqueStream('project');
    const { ws, frames } = await follow(streamId);
    // A Wire every 30 ms until anchor news has ridden along in a wires frame
    // (anchors come back while Wires keep flowing), then a few more. How many
    // that takes follows the machine's load, so it is counted, not fixed.
    const rode = () => frames.some((f) => f.kind === 'wires' && (f.anchored?.length ?? 0) > 0);
    let n = 0;
    let after = 0;
    while (n < 400 && after < 3) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
      n++;
      if (rode()) after++;
      await new Promise((r) => setTimeout(r, 30));
    }
    await untilAnchored(streamId, [`project.${streamId.slice('project:'.length)}`]);
    const told = () => {
      const seqs = new Set<number>();
      for (const f of frames) {
        for (const w of [...(f.kind === 'wires' ? (f.wires ?? []) : []), ...(f.anchored ?? [])]) {
          if (w.anchor.status === 'anchored') seqs.add(w.stream_seq);
        }
        if (f.kind === 'anchored') for (const w of f.wires ?? []) seqs.add(w.stream_seq);
      }
      return seqs;
    };
    for (let i = 0; i < 100 && told().size < n; i++) await new Promise((r) => setTimeout(r, 20));
    // Every Wire's anchor reached the subscriber, once it held the Wire.
    expect([...told()].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const riding = frames.filter((f) => f.kind === 'wires' && f.anchored?.length);
    const alone = frames.filter((f) => f.kind === 'anchored');
    expect(riding.length).toBeGreaterThan(0);
    console.log(
      `${n} Wires: ${riding.length} wires frames carried anchor news, ${alone.length} anchored frames went alone`,
    );
    for (const f of riding) {
      const firstSeq = f.wires?.[0]?.stream_seq ?? 0;
      // Only news of Wires sent before this frame; its own Wires carry theirs.
      expect(f.anchored?.every((w) => w.stream_seq < firstSeq)).toBe(true);
      expect(f.anchored?.every((w) => w.anchor.status === 'anchored')).toBe(true);
    }
    ws.close(1000, 'done');
  });

  it('tells a resuming subscriber which of its pending Wires were anchored while it was away', async () => {
    const streamId = uniqueStream('project');
    for (let i = 0; i < 3; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    }
    await untilAnchored(streamId, [`project.${streamId.slice('project:'.length)}`]);
    // The client holds 1..3 and still shows 2 and 3 as pending.
    const { ws, frames } = await follow(streamId, 'after_seq=3&anchors_from=2');
    for (let i = 0; i < 50 && !frames.some((f) => f.kind === 'caught-up'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(frames.map((f) => f.kind)).toEqual(['hello', 'anchored', 'caught-up']);
    expect(frames[1]?.wires?.map((w) => [w.stream_seq, w.anchor.status])).toEqual([
      [2, 'anchored'],
      [3, 'anchored'],
    ]);
    ws.close(1000, 'done');
    // A bad value is refused before any socket opens.
    for (const bad of ['anchors_from=0', 'anchors_from=x']) {
      const refused = await openWs(streamId, `after_seq=3&${bad}`);
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { detail: string };
      expect(body.detail).toContain('anchors_from must be an integer');
    }
  });

  it('tells a resuming socket every Wire anchored while it was away, a thousand to a frame', async () => {
    const streamId = uniqueStream('project');
    const topic = `project.${streamId.slice('project:'.length)}`;
    // A checkpoint per 256 Wires: 1,200 Wires anchor in five HCS messages.
    const set = await api(`/v1/topics/${topic}/anchoring`, {
      method: 'PUT',
      body: JSON.stringify({ mode: 'log', every: 256, ms: 200 }),
    });
    expect(set.status).toBe(200);
    const stream = streamStub(env, streamId);
    for (let batch = 0; batch < 12; batch++) {
      const drafts = Array.from({ length: 100 }, () => {
        const drafted = draftOf(wire11(streamId, { correlation_id: null }), streamId, REGISTRY);
        if (!drafted.ok) throw new Error(drafted.detail);
        return drafted.draft;
      });
      expect((await stream.appendMany(drafts)).ok).toBe(true);
    }
    await untilAnchored(streamId, [topic], 60_000);
    // The client holds all 1,200 and still shows every one as pending (an outage).
    const { ws, frames } = await follow(streamId, 'after_seq=1200&anchors_from=1');
    for (let i = 0; i < 250 && !frames.some((f) => f.kind === 'caught-up'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    ws.close(1000, 'done');
    expect(frames.map((f) => [f.kind, f.wires?.length ?? 0])).toEqual([
      ['hello', 0],
      ['anchored', 1000],
      ['anchored', 200],
      ['caught-up', 0],
    ]);
    const told = frames.flatMap((f) => (f.kind === 'anchored' ? (f.wires ?? []) : []));
    expect(told.map((w) => w.stream_seq)).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
    expect(new Set(told.map((w) => w.anchor.status))).toEqual(new Set(['anchored']));
  }, 120_000);

  it('anchors a steady stream with one submit per Wire, found on the mirror: no receipt, record or price query', async () => {
    const streamId = uniqueStream('project');
    const topic = `project.${streamId.slice('project:'.length)}`;
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const [first] = await untilAnchored(streamId, [topic]);
    for (let i = 0; i < 10; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
      await untilAnchored(streamId, [topic]);
    }
    const topicId = first?.anchor.hcs_topic_id ?? '';
    const res = await fetch(`${standinUrl()}/__standin/requests/${topicId}`);
    const requests = (await res.json()) as Record<string, number>;
    // Each pass submits what is fresh, then reads the topic on the mirror once
    // after where its last read ended: the Wires are found there. Before: a
    // record per Wire (11), and a receipt per Wire before that (12).
    expect(requests).toMatchObject({ submit: 11, record: 0, cost: 0 });
    expect(requests.receipt).toBeLessThanOrEqual(1); // the topic's creation
    expect(requests.mirror).toBeGreaterThanOrEqual(11);
    expect(requests.mirror).toBeLessThanOrEqual(22);
    // What the mirror gave is what HCS holds: sequence, time and running hash.
    const wires = await untilAnchored(streamId, [topic]);
    const { stored, onMirror } = await anchorsBesideMirror(wires, topicId);
    expect(stored).toEqual(onMirror);
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
