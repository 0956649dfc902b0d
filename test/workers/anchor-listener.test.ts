import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { verifyTopic } from '../../src/anchor/verify-topic';
import type { TopicObject } from '../../src/topic/topic-object';
import { api, readWires, standinUrl, untilAnchored } from './helpers/anchoring';
import { alertsFor, directSubmitter, runCron } from './helpers/listener';
import { post, uniqueStream, wire11 } from './helpers/wires';

/** A stream with `n` anchored Wires (one of them chunked); returns its HCS topic id. */
async function anchoredTopic(n: number) {
  const streamId = uniqueStream('project');
  const topic = `project.${streamId.slice('project:'.length)}`;
  for (let i = 0; i < n; i++) {
    const payload =
      i === 1 ? { concern: 'big', notes: 'chunk me '.repeat(300) } : { concern: `c${i}` };
    expect((await post(streamId, wire11(streamId, { correlation_id: null, payload }))).status).toBe(
      201,
    );
  }
  const wires = await untilAnchored(streamId, [topic]);
  expect(wires.every((w) => w.anchor.status === 'anchored')).toBe(true);
  return { streamId, topic, topicId: wires[0]?.anchor.hcs_topic_id ?? '' };
}

const authedApi = (path: string) => api(path);

describe('the HCS listener and verify', { timeout: 40_000 }, () => {
  it('finds nothing wrong on a clean topic, and verify agrees byte for byte', async () => {
    const { topic, topicId } = await anchoredTopic(3);
    await runCron();
    const status = await env.TOPICS.get(env.TOPICS.idFromName(topic)).status();
    expect(status.listened_to_seq).toBe(5); // 1 + 3 chunks + 1
    expect(await alertsFor(topicId)).toEqual([]);
    const report = await verifyTopic(standinUrl(), topicId, authedApi);
    expect(report).toMatchObject({ messages: 5, whole_messages: 3, anchors_checked: 3, ok: true });
    // D1 gathers anchors for up to PROJECT_EVERY_MS before writing them.
    const projected = async () =>
      (
        await env.DB.prepare(
          'SELECT hcs_sequence_number FROM wire_events WHERE hcs_topic_id = ? ORDER BY hcs_sequence_number',
        )
          .bind(topicId)
          .all<{ hcs_sequence_number: number }>()
      ).results.map((r) => r.hcs_sequence_number);
    for (let i = 0; i < 40 && (await projected()).length < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await projected()).toEqual([1, 4, 5]);
  });

  it('reports a tampered running hash in the mirror data, through the API and in verify', async () => {
    const { topicId } = await anchoredTopic(3);
    const tamper = await fetch(`${standinUrl()}/__standin/tamper`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ topicId, sequenceNumber: 2 }),
    });
    expect(tamper.status).toBe(200);
    await runCron();
    const alerts = await alertsFor(topicId);
    expect(alerts.map((a) => [a.kind, a.sequence_number])).toEqual([['running-hash-mismatch', 2]]);
    const report = await verifyTopic(standinUrl(), topicId, authedApi);
    expect(report.ok).toBe(false);
    expect(report.findings.map((f) => [f.kind, f.sequence_number])).toEqual([
      ['running-hash-mismatch', 2],
    ]);
  });

  it('ingests a Wire an agent put on the topic directly, and rejects one that breaks the rules', async () => {
    const { topic, topicId } = await anchoredTopic(1);
    const submit = directSubmitter(topicId);
    const streamId = uniqueStream('project');
    const good = wire11(streamId, { correlation_id: null });
    await submit(JSON.stringify(good));
    await submit(JSON.stringify({ ...wire11('project:x'), type: 'task.claim', payload: {} }));
    await submit('not json at all');
    await runCron();

    const [ingested] = await readWires(good.stream_id);
    expect(ingested).toMatchObject({
      wire_id: good.wire_id,
      stream_seq: 1,
      anchor: { status: 'anchored', hcs_topic_id: topicId, hcs_sequence_number: 2, topic },
    });
    const kinds = (await alertsFor(topicId)).map((a) => [a.kind, a.sequence_number]);
    expect(kinds).toEqual([
      ['hcs-first-ingested', 2],
      ['hcs-first-rejected', 3],
      ['hcs-first-rejected', 4],
    ]);
    const rejected = (await alertsFor(topicId)).find((a) => a.sequence_number === 3);
    expect(rejected?.detail).toContain('payload.task_id');
    const proof = await (await api(`/v1/wires/${good.wire_id}/proof`)).json();
    expect(proof).toMatchObject({ origin: 'hcs-first', hcs_sequence_number: 2 });
  });

  it('refuses from HCS-first what only a token can grant: orchestration, system, secrets; HCS_FIRST=off ingests nothing', async () => {
    const { topic, topicId } = await anchoredTopic(1);
    const direct = directSubmitter(topicId);
    const submit = (wire: Record<string, unknown>) => direct(JSON.stringify(wire));
    const task = uniqueStream('task').split(':')[1] ?? 't';
    const taskStream = `task:${task}:attempt:1`;
    // Anyone may write to the topic: a forged offer, a forged system Wire, a leaked key.
    await submit(
      wire11(taskStream, {
        sender: 'coordinator:mallory',
        type: 'task.available',
        payload: { task_id: task, role: 'developer' },
      }),
    );
    const project = uniqueStream('project');
    await submit(wire11(project, { sender: 'system', correlation_id: null }));
    await submit(
      wire11(project, {
        correlation_id: null,
        payload: { concern: 'oops', key: 'AKIAIOSFODNN7EXAMPLE' },
      }),
    );
    await runCron();
    const details = (await alertsFor(topicId)).map((a) => [a.kind, a.sequence_number, a.detail]);
    expect(details.map(([kind, seq]) => [kind, seq])).toEqual([
      ['hcs-first-rejected', 2],
      ['hcs-first-rejected', 3],
      ['hcs-first-rejected', 4],
    ]);
    expect(details[0]?.[2]).toContain(
      '"task.available" needs a coordinator identity, which a Wire put on HCS directly cannot prove',
    );
    expect(details[1]?.[2]).toContain('sender "system" is reserved');
    expect(details[2]?.[2]).toContain('secret-shaped value: payload.key');
    expect(await readWires(taskStream)).toEqual([]);
    expect(await readWires(project)).toEqual([]);

    // The operator's policy: off, or only named payers, each as its own sender.
    const stub = env.TOPICS.get(env.TOPICS.idFromName(topic));
    type Vars = Record<'HCS_FIRST' | 'HEDERA_NETWORK' | 'HEDERA_MIRROR_URL', string | undefined>;
    const listenWith = (policy: string | undefined, more: Partial<Vars> = {}) =>
      runInDurableObject(stub, async (object) => {
        const own = (object as unknown as { env: Vars }).env;
        const patch: Partial<Vars> = { HCS_FIRST: policy, ...more };
        const before = Object.fromEntries(
          Object.keys(patch).map((k) => [k, own[k as keyof Vars]]),
        ) as Partial<Vars>;
        Object.assign(own, patch);
        try {
          await (object as unknown as TopicObject).listen();
        } finally {
          for (const [k, v] of Object.entries(before)) {
            if (v === undefined) delete own[k as keyof Vars];
            else own[k as keyof Vars] = v;
          }
        }
      });
    const detailAt = async (seq: number) =>
      (await alertsFor(topicId)).find((a) => a.sequence_number === seq);
    // The agent here pays with the stand-in's operator account, 0.0.2.
    const fine = () => wire11(uniqueStream('project'), { correlation_id: null });
    const off = fine();
    await submit(off);
    await listenWith('off');
    expect(await detailAt(5)).toMatchObject({ kind: 'hcs-first-rejected' });
    expect((await detailAt(5))?.detail).toContain('HCS-first ingestion is off (HCS_FIRST=off)');
    expect(await readWires(off.stream_id)).toEqual([]);

    const stranger = fine();
    await submit(stranger);
    await listenWith('{"0.0.999":"agent:test"}');
    expect((await detailAt(6))?.detail).toContain('payer 0.0.2 is not in HCS_FIRST');

    const impostor = { ...fine(), sender: 'agent:quinn-07' };
    const genuine = { ...fine(), sender: 'agent:test' };
    await submit(impostor);
    await submit(genuine);
    await listenWith('{"0.0.2":"agent:test"}');
    expect((await detailAt(7))?.detail).toContain(
      'sender "agent:quinn-07" is not "agent:test", the sender HCS_FIRST names for payer 0.0.2',
    );
    expect(await detailAt(8)).toMatchObject({ kind: 'hcs-first-ingested' });
    expect((await readWires(genuine.stream_id)).map((w) => w.wire_id)).toEqual([genuine.wire_id]);
    expect(await readWires(impostor.stream_id)).toEqual([]);

    await submit(fine());
    await listenWith('agents please');
    expect((await detailAt(9))?.detail).toContain('HCS_FIRST is not "on", "off" or a JSON map');

    // Unset on a public network: nothing unproven, since anyone can post there
    // and every anchored fencing token is public. Asked for with "on", it is.
    const publicNet = { HEDERA_NETWORK: 'testnet', HEDERA_MIRROR_URL: standinUrl() };
    const unasked = fine();
    await submit(unasked);
    await listenWith(undefined, publicNet);
    expect((await detailAt(10))?.detail).toContain(
      'HCS_FIRST is unset on testnet, so nothing put on HCS directly is ingested',
    );
    expect(await readWires(unasked.stream_id)).toEqual([]);
    const asked = fine();
    await submit(asked);
    await listenWith('on', publicNet);
    expect(await detailAt(11)).toMatchObject({ kind: 'hcs-first-ingested' });
    expect((await readWires(asked.stream_id)).map((w) => w.wire_id)).toEqual([asked.wire_id]);
  });
});
