import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { sqlOf } from '../../src/kernel/sql';
import { LogAnchoring } from '../../src/topic/log-anchoring';
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
      const shared = new LogAnchoring({ ...deps, sharedTopic: () => why });
      expect(shared.settings().mode).toBe('log');
      expect(shared.mode()).toBe('envelope');
      expect(await shared.view()).toMatchObject({ running_mode: 'envelope', log_unavailable: why });
      const own = new LogAnchoring({ ...deps, sharedTopic: () => null });
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
