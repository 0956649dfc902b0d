import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { sqlOf } from '../../src/kernel/sql';
import { type StoredWire, wireMessage } from '../../src/protocol';
import { LogAnchoring } from '../../src/topic/log-anchoring';
import type { AnchorQueue } from '../../src/topic/mirror-confirm';
import { sharedTopicProblem } from '../../src/topic/topic-id';
import { TopicLog } from '../../src/topic/topic-log';
import { api, appendInLogMode, faults, mirrorMessages, untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { post, problemOf, uniqueStream, wire11 } from './helpers/wires';

/**
 * A topic that leaves log mode, and topics that may not enter it (issue 31):
 * checkpoints signed before a switch back to envelope mode are finished, not
 * replaced by one message per Wire, and the log's proofs stay served; a topic
 * whose HCS topic another topic name uses anchors in envelope mode.
 */

const topicOf = (streamId: string) => `project.${streamId.slice('project:'.length)}`;

async function anchoring(topic: string) {
  return (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as {
    archive: { archived_size: number };
    running_mode: string;
    log_unavailable: string | null;
  };
}

async function until<T>(read: () => Promise<T>, done: (t: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('switching a log-mode topic back to envelope mode', () => {
  it('sends the checkpoint signed before the switch, not its Wires one by one, and still proves them', async () => {
    const streamId = uniqueStream();
    const topic = topicOf(streamId);
    // One Wire, one checkpoint: the topic now has its HCS id.
    const [first] = await appendInLogMode(topic, streamId, 1, 1, 'first');
    const [anchored] = await untilAnchored(streamId, [topic], 30_000);
    const topicId = anchored?.anchor.hcs_topic_id ?? '';
    expect(anchored?.anchor.hcs_sequence_number).toBe(1);

    // HCS out of reach for this topic: the next checkpoint is signed but cannot leave.
    await faults({ topicId, unavailable: true });
    try {
      const held = await appendInLogMode(topic, streamId, 3, 3, 'held');
      expect(held).toHaveLength(3);
      // Archived as soon as it is signed: the checkpoint of size 4 exists.
      const signed = await until(
        () => anchoring(topic),
        (v) => v.archive.archived_size === 4,
      );
      expect(signed.archive.archived_size).toBe(4);
      const back = await api(`/v1/topics/${topic}/anchoring`, {
        method: 'PUT',
        body: JSON.stringify({ mode: 'envelope' }),
      });
      expect(back.status).toBe(200);
    } finally {
      await faults({ topicId });
    }
    // A Wire after the switch: a message of its own.
    const after = wire11(streamId, { correlation_id: null, payload: { concern: 'after' } });
    expect((await post(streamId, after)).status).toBe(201);

    const wires = await untilAnchored(streamId, [topic], 30_000);
    // Checkpoint 1, then the held checkpoint for the three Wires, then the new Wire alone.
    expect(wires.map((w) => w.anchor.hcs_sequence_number)).toEqual([1, 2, 2, 2, 3]);
    expect((await mirrorMessages(topicId)).map((m) => m.sequence_number)).toEqual([1, 2, 3]);

    // The log's Wires keep their log proofs, the new Wire has an envelope proof.
    const proofOf = async (wireId: string) =>
      (await (await api(`/v1/wires/${wireId}/proof`)).json()) as {
        mode?: string;
        tree_size?: number;
        hcs_sequence_number?: number;
      };
    expect(await proofOf(first?.wire_id ?? '')).toMatchObject({ mode: 'log', tree_size: 1 });
    expect(await proofOf(wires[2]?.wire_id ?? '')).toMatchObject({ mode: 'log', tree_size: 4 });
    const own = await proofOf(after.wire_id);
    expect(own.mode).toBeUndefined();
    expect(own.hcs_sequence_number).toBe(3);
    const consistency = await api(`/v1/topics/${topicId}/log/consistency?from=1&to=4`);
    expect(consistency.status).toBe(200);
  }, 90_000);
});

describe('a topic on an HCS topic another topic name uses', () => {
  const testnet = (topics: Record<string, string>) => ({
    ...env,
    HEDERA_NETWORK: 'testnet',
    HEDERA_TOPICS: JSON.stringify(topics),
  });

  it('cannot keep a log there, and is told which names share the id', () => {
    const deployed = testnet({
      default: '0.0.5005',
      'roles.dev': '0.0.6006',
      'roles.qa': '0.0.6006',
    });
    // Not in HEDERA_TOPICS: it would anchor on default's topic.
    expect(sharedTopicProblem(deployed, 'project.kv-m02', null)).toBe(
      '"project.kv-m02" is not in HEDERA_TOPICS and anchors on 0.0.5005, the HCS topic of "default"; a log needs an HCS topic of its own: add "project.kv-m02" to HEDERA_TOPICS',
    );
    expect(sharedTopicProblem(deployed, 'roles.dev', null)).toBe(
      'HEDERA_TOPICS gives "roles.dev" the HCS topic 0.0.6006, which "roles.qa" also use; a log needs an HCS topic of its own',
    );
    // Its own: default's topic, however many names fall back to it; a topic created for its name.
    expect(sharedTopicProblem(deployed, 'default', null)).toBeNull();
    expect(sharedTopicProblem(env, 'project.kv-m02', null)).toBeNull();
    expect(sharedTopicProblem(env, 'project.kv-m02', '0.0.1234')).toBeNull();
  });

  it('anchors in envelope mode under a log setting, and its anchoring view says why', async () => {
    const topic = topicOf(uniqueStream());
    const why = 'shares 0.0.5005 with "default"';
    await runInDurableObject(env.TOPICS.get(env.TOPICS.idFromName(topic)), async (_o, state) => {
      const sql = sqlOf(state.storage.sql);
      const log = new TopicLog(sql, state.storage);
      const deps = {
        sql,
        log,
        env: { ...env, ANCHOR_MODE: 'log' },
        topicId: async () => '0.0.5005',
        send: async () => ({ fresh: false, inFlight: false }),
      };
      const shared = new LogAnchoring({ ...deps, logUnavailable: () => why });
      expect(shared.settings().mode).toBe('log');
      expect(shared.mode()).toBe('envelope');
      expect(await shared.view()).toMatchObject({ running_mode: 'envelope', log_unavailable: why });
      const own = new LogAnchoring({ ...deps, logUnavailable: () => null });
      expect(own.mode()).toBe('log');
      expect(await own.view()).toMatchObject({ running_mode: 'log', log_unavailable: null });
    });
  });

  it('refuses PUT {"mode":"log"} with a 422 on mode, and keeps its settings', async () => {
    const topic = topicOf(uniqueStream());
    const vars = {
      ...env,
      HEDERA_TOPICS: JSON.stringify({ [topic]: '0.0.7007', 'roles.ops': '0.0.7007' }),
    };
    const app = createApp();
    const put = async (body: unknown) =>
      app.request(
        `https://ws.test/v1/topics/${topic}/anchoring`,
        {
          method: 'PUT',
          headers: {
            ...(await authHeaders('human:ops', ['admin'])),
            'Content-Type': 'application/json',
          },
          body: JSON.stringify(body),
        },
        vars,
      );
    const refused = await put({ mode: 'log', every: 10 });
    expect(refused.status).toBe(422);
    const problem = await problemOf(refused);
    expect(problem.errors?.[0]?.path).toBe('mode');
    expect(problem.detail).toContain('"roles.ops"');
    const view = (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as { own: unknown };
    expect(view.own).toBeNull();
    // Settings that do not ask for a log are taken.
    expect((await put({ every: 10 })).status).toBe(200);
  });
});

describe('a topic whose log becomes unavailable after it kept one', () => {
  it('sends the checkpoints it signed, its Wires keep their leaves and proofs, and later Wires are no leaves', async () => {
    const streamId = uniqueStream();
    const topic = topicOf(streamId);
    const hcsId = '0.0.8008';
    await runInDurableObject(env.TOPICS.get(env.TOPICS.idFromName(topic)), async (_o, state) => {
      const sql = sqlOf(state.storage.sql);
      const log = new TopicLog(sql, state.storage);
      log.set('name', topic);
      log.set('hcs_topic_id', hcsId);
      // HCS as the anchoring loop reports it: each message sent is confirmed, unless down.
      let hcsUp = true;
      let sequence = 0;
      const send = async (queue: AnchorQueue) => {
        for (const row of hcsUp ? queue.unanchored(100) : []) {
          sequence += 1;
          const anchor = {
            hcs_topic_id: hcsId,
            hcs_sequence_number: sequence,
            consensus_timestamp: `1767225600.${String(sequence).padStart(9, '0')}`,
            running_hash: 'AA==',
            hcs_chunks: 1,
          };
          queue.recordAnchor(row.pos, anchor, Date.now());
        }
        return { fresh: false, inFlight: !hcsUp };
      };
      let unavailable: string | null = null;
      const anchoring = new LogAnchoring({
        sql,
        log,
        env: { ...env, ANCHOR_MODE: 'log' },
        topicId: async () => hcsId,
        send,
        logUnavailable: () => unavailable,
      });
      anchoring.set({ every: 1 });
      // What the TopicObject's pass does (envelope mode then sends what is left one message each).
      const anchorOnce = () => (anchoring.mode() === 'log' ? anchoring.pass() : anchoring.finish());
      let seq = 0;
      const accept = (n: number): StoredWire[] => {
        const wires = Array.from({ length: n }, (): StoredWire => {
          seq += 1;
          const body = wire11(streamId, { correlation_id: null });
          return { ...body, wire: '1.1', stream_seq: seq, received_at: new Date().toISOString() };
        });
        log.accept(wires, wireMessage, Date.now());
        return wires;
      };
      const posOf = (w: StoredWire) => log.byWire(streamId, w.wire_id)?.pos ?? -1;

      const [first] = accept(1);
      await anchorOnce(); // leaf 0, its checkpoint confirmed
      hcsUp = false;
      const held = accept(2);
      await anchorOnce(); // leaves 1 and 2, their checkpoints signed but not confirmed

      // WIRE_MAX_BYTES raised past what a log entry holds.
      unavailable = 'WIRE_MAX_BYTES is 200000: …';
      hcsUp = true;
      expect(anchoring.mode()).toBe('envelope');
      expect(await anchoring.view()).toMatchObject({
        running_mode: 'envelope',
        log_unavailable: unavailable,
      });
      expect(await anchorOnce()).toEqual({ fresh: false, inFlight: false });
      const later = accept(1);
      expect(await anchorOnce()).toBeNull();

      // The signed checkpoints anchored their Wires, which stay leaves with log proofs.
      const wires = [first, ...held, ...later].filter((w) => w !== undefined);
      expect(wires.map((w) => log.byWire(streamId, w.wire_id)?.hcs_sequence_number)).toEqual([
        1,
        2,
        3,
        null,
      ]);
      expect([...anchoring.leavesAt(wires.map(posOf)).values()]).toEqual([0, 1, 2]);
      const proof = await anchoring.proof(streamId, held[1]?.wire_id ?? '');
      expect(proof).toMatchObject({ leaf_index: 2, tree_size: 3 });
      // The archive copies every checkpoint signed before the log became unavailable.
      await anchoring.archive();
      expect((await anchoring.view()).archive).toEqual({ archived_size: 3, last_error: null });
    });
  });
});
