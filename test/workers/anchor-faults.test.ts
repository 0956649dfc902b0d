import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { wireMessage } from '../../src/protocol';
import {
  anchorsBesideMirror,
  api,
  faults,
  type MirrorMessage,
  mirrorMessages,
  requestsOf,
  standinUrl,
  untilAnchored,
} from './helpers/anchoring';
import { post, uniqueStream, wire11 } from './helpers/wires';

/** A project stream and the topic its Wires travel on. */
function projectStream() {
  const streamId = uniqueStream('project');
  return { streamId, topic: `project.${streamId.slice('project:'.length)}` };
}

/** A project stream whose first Wire is anchored, so its HCS topic exists. */
async function topicInUse() {
  const { streamId, topic } = projectStream();
  expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
  const [first] = await untilAnchored(streamId, [topic]);
  return { streamId, topic, topicId: first?.anchor.hcs_topic_id ?? '' };
}

/** The topic's entry in GET /v1/topics, as an operator reads it. */
async function topicStatus(name: string): Promise<Record<string, unknown> | undefined> {
  const body = (await (await api('/v1/topics')).json()) as { topics: { name: string }[] };
  return body.topics.find((t) => t.name === name);
}

function wireIdsOnTopic(messages: { message: string; chunk_info: { number: number } | null }[]) {
  return messages
    .filter((m) => (m.chunk_info?.number ?? 1) === 1)
    .map((m) => {
      try {
        return (JSON.parse(atob(m.message)) as { wire_id: string }).wire_id;
      } catch {
        return 'chunk';
      }
    });
}

describe('anchoring under faults', { timeout: 40_000 }, () => {
  it('chunks a Wire over 1024 bytes and the mirror reassembles it byte for byte', async () => {
    const { streamId, topic } = projectStream();
    const body = wire11(streamId, {
      correlation_id: null,
      payload: { concern: 'size', notes: 'lorem ipsum dolor sit amet '.repeat(110) },
    });
    expect((await post(streamId, body)).status).toBe(201);
    const [wire] = await untilAnchored(streamId, [topic]);
    expect(wire?.anchor.status).toBe('anchored');
    const chunks = wire?.anchor.hcs_chunks ?? 0;
    expect(chunks).toBe(4);
    const messages = await mirrorMessages(wire?.anchor.hcs_topic_id ?? '');
    expect(messages).toHaveLength(chunks);
    expect(messages.map((m) => m.chunk_info?.number)).toEqual([1, 2, 3, 4]);
    // The last chunk's sequence number and running hash stand for the message.
    expect(wire?.anchor.hcs_sequence_number).toBe(4);
    expect(messages[3]?.running_hash).toBe(wire?.anchor.running_hash);
    const text = messages.map((m) => atob(m.message)).join('');
    expect(text).toBe(wireMessage({ ...body, wire: '1.1', stream_seq: 1 }));
  });

  it('sends a chunked Wire again under new ids when an outage outlives the ids of its later chunks', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    // The node goes down after taking the first of three chunks.
    await faults({ topicId, laterChunksUnavailable: true });
    const body = wire11(streamId, {
      correlation_id: null,
      payload: { concern: 'size', notes: 'lorem ipsum dolor sit amet '.repeat(70) },
    });
    expect((await post(streamId, body)).status).toBe(201);
    for (let i = 0; i < 200 && (await mirrorMessages(topicId)).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const orphan = (await mirrorMessages(topicId))[1];
    expect(orphan?.chunk_info).toMatchObject({ number: 1, total: 3 });
    // It comes back after the ids' valid duration: the later chunks can
    // never join the first one, so the whole message goes again.
    await faults({ topicId, expireOlderIds: true });
    const wires = await untilAnchored(streamId, [topic]);
    await faults({ topicId });
    expect(wires[1]?.anchor).toMatchObject({ status: 'anchored', hcs_chunks: 3 });
    const messages = await mirrorMessages(topicId);
    const again = messages.slice(2);
    expect(again.map((m) => m.chunk_info?.number)).toEqual([1, 2, 3]);
    const initial = (m: MirrorMessage | undefined) =>
      m?.chunk_info?.initial_transaction_id.transaction_valid_start;
    expect(new Set(again.map(initial)).size).toBe(1);
    expect(initial(again[0])).not.toBe(initial(orphan));
    expect(wires[1]?.anchor).toMatchObject({
      hcs_sequence_number: 5,
      running_hash: again[2]?.running_hash,
    });
    const text = again.map((m) => atob(m.message)).join('');
    expect(text).toBe(wireMessage({ ...body, wire: '1.1', stream_seq: 2 }));
  });

  it('anchors every Wire accepted while the network was unavailable, each once', async () => {
    const { streamId, topic, topicId } = await topicInUse();

    await faults({ topicId, unavailable: true });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = wire11(streamId, { correlation_id: null });
      ids.push(body.wire_id);
      expect((await post(streamId, body)).status).toBe(201);
    }
    const stuck = await untilAnchored(streamId, [topic], 1500);
    expect(stuck.filter((w) => w.anchor.status === 'pending')).toHaveLength(5);
    expect(await mirrorMessages(topicId)).toHaveLength(1);

    await faults({ topicId });
    const wires = await untilAnchored(streamId, [topic]);
    expect(wires.every((w) => w.anchor.status === 'anchored')).toBe(true);
    const onTopic = wireIdsOnTopic(await mirrorMessages(topicId));
    expect(onTopic).toHaveLength(6);
    expect(new Set(onTopic).size).toBe(6);
    expect(onTopic.slice(1)).toEqual(ids); // in the order they were accepted
  });

  it('keeps acceptance order when a Wire whose submit was refused is followed by fresh ones', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    // The node refuses the next submit once: that Wire keeps its ids and
    // goes again; the two accepted after it must not overtake it.
    await faults({ topicId, payerBroke: 1 });
    const wires = [0, 1, 2].map(() => wire11(streamId, { correlation_id: null }));
    for (const body of wires) expect((await post(streamId, body)).status).toBe(201);

    const served = await untilAnchored(streamId, [topic]);
    expect(served.every((w) => w.anchor.status === 'anchored')).toBe(true);
    const onTopic = wireIdsOnTopic(await mirrorMessages(topicId));
    expect(onTopic.slice(1)).toEqual(wires.map((w) => w.wire_id));
    expect((await requestsOf(topicId)).submit).toBe(5); // the first Wire, its refused submit, and the three
    await faults({ topicId });
  });

  it('puts a Wire on the topic exactly once when its submit response is lost', async () => {
    const { streamId, topic, topicId } = await topicInUse();

    await faults({ topicId, loseReceipts: 2 });
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const wires = await untilAnchored(streamId, [topic]);
    expect(wires[1]?.anchor).toMatchObject({ status: 'anchored', hcs_sequence_number: 2 });
    const onTopic = wireIdsOnTopic(await mirrorMessages(topicId));
    expect(onTopic.filter((id) => id === body.wire_id)).toHaveLength(1);
    expect(onTopic).toHaveLength(2);
    await faults({ topicId });
  });

  it('stops waiting for a node that answers too late: a 5 s deadline per attempt', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    const before = await requestsOf(topicId);

    // The node takes the submit at once but answers 60 s later: only the
    // 5 s per-attempt deadline gets the Wire anchored within the 20 s wait.
    await faults({ topicId, answerDelayMs: 60_000 });
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const wires = await untilAnchored(streamId, [topic]);
    await faults({ topicId });
    expect(wires[1]?.anchor).toMatchObject({ status: 'anchored', hcs_sequence_number: 2 });
    // The held submit and at most one retry under the same id (a duplicate);
    // then the mirror shows the Wire. Nothing new on the topic.
    expect((await requestsOf(topicId)).submit - before.submit).toBeLessThanOrEqual(2);
    const onTopic = wireIdsOnTopic(await mirrorMessages(topicId));
    expect(onTopic.filter((id) => id === body.wire_id)).toHaveLength(1);
  });

  it('rides out BUSY answers and consensus latency', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    await faults({ topicId, busy: 3, receiptDelayMs: 300 });
    for (let i = 0; i < 3; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    }
    const wires = await untilAnchored(streamId, [topic]);
    expect(wires.map((w) => w.anchor.hcs_sequence_number)).toEqual([1, 2, 3, 4]);
    await faults({ topicId });
  });

  it('waits for a lagging mirror instead of paying for records', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    const before = await requestsOf(topicId);
    // Consensus at once, but the mirror shows messages 1.5 s later.
    await faults({ topicId, mirrorLagMs: 1500 });
    for (let i = 0; i < 3; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    }
    const wires = await untilAnchored(streamId, [topic]);
    await faults({ topicId });
    expect(wires.map((w) => w.anchor.hcs_sequence_number)).toEqual([1, 2, 3, 4]);
    const after = await requestsOf(topicId);
    expect(after.submit - before.submit).toBe(3);
    expect(after.record - before.record).toBe(0);
    expect(after.receipt - before.receipt).toBe(0);
    expect(after.mirror - before.mirror).toBeGreaterThan(1);
  });

  it('takes no anchor from the mirror that the running-hash chain does not support', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    const tamper = (restore: boolean) =>
      fetch(`${standinUrl()}/__standin/tamper`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ topicId, sequenceNumber: 2, restore }),
      });
    // The second Wire reaches consensus while the mirror hides it; then the
    // mirror serves it with a flipped running hash.
    await faults({ topicId, mirrorLagMs: 60_000 });
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    for (let i = 0; i < 100 && (await tamper(false)).status !== 200; i++) {
      await runDurableObjectAlarm(env.TOPICS.get(env.TOPICS.idFromName(topic)));
      await new Promise((r) => setTimeout(r, 50));
    }
    const before = await requestsOf(topicId);
    await faults({ topicId });
    const wires = await untilAnchored(streamId, [topic]);
    const served = (await mirrorMessages(topicId))[1]?.running_hash;
    expect((await tamper(true)).status).toBe(200);
    const truth = (await mirrorMessages(topicId))[1]?.running_hash;
    expect(served).not.toBe(truth);
    // Anchored from the node's record instead, with the true hash.
    expect(wires[1]?.anchor).toMatchObject({ hcs_sequence_number: 2, running_hash: truth });
    expect((await requestsOf(topicId)).record - before.record).toBeGreaterThanOrEqual(1);
  });

  it('anchors through receipts and records while the mirror is down, and goes back to free receipts when consensus slows', async () => {
    const { streamId, topic, topicId } = await topicInUse();
    await faults({ topicId, mirrorUnavailable: true });
    // A steady, fast topic without its mirror: records are asked for directly.
    for (let i = 0; i < 6; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
      await untilAnchored(streamId, [topic]);
    }
    const before = await requestsOf(topicId);
    // Now consensus takes 1.5 s, as on Hedera: Wires are looked up many times
    // before they are through.
    await faults({ topicId, mirrorUnavailable: true, receiptDelayMs: 1500 });
    for (let i = 0; i < 4; i++) {
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    }
    const wires = await untilAnchored(streamId, [topic]);
    await faults({ topicId });
    expect(wires.every((w) => w.anchor.status === 'anchored')).toBe(true);
    const after = await requestsOf(topicId);
    const records = after.record - before.record;
    const receipts = after.receipt - before.receipt;
    // One paid record per Wire once through, plus at most one window of
    // record lookups that missed before the topic fell back to receipts; the
    // waiting itself is polled by (free) receipt.
    expect(records).toBeGreaterThanOrEqual(4);
    expect(records).toBeLessThanOrEqual(4 + 6);
    expect(receipts).toBeGreaterThan(4);
    // The records gave what the mirror shows once it is back.
    const { stored, onMirror } = await anchorsBesideMirror(wires, topicId);
    expect(stored).toEqual(onMirror);
  });

  it('projects a Wire into D1 once D1 is back, after its writes failed', async () => {
    const { streamId, topic } = projectStream();
    const body = wire11(streamId, { correlation_id: null });
    const inD1 = async () =>
      (await (await api(`/v1/wires?stream_id=${encodeURIComponent(streamId)}`)).json()) as {
        wires: { wire_id: string; hcs_sequence_number: number | null }[];
      };
    // D1 refuses every write to the table while it is renamed.
    await env.DB.exec('ALTER TABLE wire_events RENAME TO wire_events_off');
    try {
      expect((await post(streamId, body)).status).toBe(201);
      await untilAnchored(streamId, [topic]);
      // Long enough for the gathering window's write and every alarm the
      // anchoring left behind to have run and failed.
      await new Promise((r) => setTimeout(r, 1500));
      // An operator sees why on GET /v1/topics, not only in the logs.
      expect(await topicStatus(topic)).toMatchObject({
        total: 1,
        anchored: 1,
        projected: 0,
        last_error: null,
        projection_error: expect.stringContaining('no such table: wire_events'),
      });
    } finally {
      await env.DB.exec('ALTER TABLE wire_events_off RENAME TO wire_events');
    }
    expect((await inD1()).wires).toEqual([]);
    // The alarm tries again every second while D1 lacks something: nothing was lost.
    let wires: { wire_id: string; hcs_sequence_number: number | null }[] = [];
    for (let i = 0; i < 60 && wires.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      wires = (await inD1()).wires;
    }
    expect(wires).toMatchObject([{ wire_id: body.wire_id, hcs_sequence_number: 1 }]);
    expect(await topicStatus(topic)).toMatchObject({ projected: 1, projection_error: null });
  });

  it('hands a Wire from the stream outbox to its topic and clears the outbox once acknowledged', async () => {
    const { streamId, topic } = projectStream();
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const stream = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    const queued = () =>
      runInDurableObject(stream, (_o, state) =>
        state.storage.sql
          .exec<{ seq: number }>("SELECT seq FROM outbox WHERE via = 'topic'")
          .toArray(),
      );
    await runDurableObjectAlarm(stream);
    expect(await queued()).toEqual([]);
    const status = await env.TOPICS.get(env.TOPICS.idFromName(topic)).status();
    expect(status).toMatchObject({ name: topic, total: 1 });
  });
});
