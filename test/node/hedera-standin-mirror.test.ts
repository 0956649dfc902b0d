// The stand-in's mirror REST API: filters, paging and error answers, checked
// field for field against the public mirror node's own OpenAPI (an excerpt in
// test/fixtures), and the tamper control used by verification tests.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TopicId } from '../../node_modules/@hashgraph/sdk/lib/browser.js';
import {
  createTopic,
  expectedRunningHash,
  type MirrorMessage,
  mirrorMessages,
  postJson,
  sdkClient,
  submit,
} from './hedera-standin-sdk.js';
import { loadOpenApi, violations } from './openapi-check.js';

const url = inject('standinUrl');
const { client } = await sdkClient(url);
const openapi = loadOpenApi('test/fixtures/mirror-node-topics.openapi.yml');
let topicId: TopicId;
let topic: string;
let all: MirrorMessage[];

beforeAll(async () => {
  topicId = await createTopic(client);
  topic = topicId.toString();
  for (const text of ['one', 'two', 'three', 'four', 'five']) {
    await (await (await submit(client, topicId, text)).execute(client)).getReceipt(client);
  }
  all = (await mirrorMessages(url, topic)).body.messages;
});
afterAll(() => client.close());

const getJson = async (path: string) => {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: (await res.json()) as unknown };
};
const seqs = async (query: string) =>
  (await mirrorMessages(url, topic, query)).body.messages.map((m) => m.sequence_number);

describe('stand-in mirror REST', () => {
  it("answers with the public mirror node's field names and types", async () => {
    const list = await getJson(`/api/v1/topics/${topic}/messages?limit=2`);
    expect(list.status).toBe(200);
    expect(violations(openapi, 'TopicMessagesResponse', list.body)).toEqual([]);
    const one = await getJson(`/api/v1/topics/${topic}/messages/3`);
    expect(violations(openapi, 'TopicMessage', one.body)).toEqual([]);
    const third = all[2];
    if (!third) throw new Error('five messages expected');
    const byTime = await getJson(`/api/v1/topics/messages/${third.consensus_timestamp}`);
    expect(byTime.body).toEqual(one.body);
    const info = await getJson(`/api/v1/topics/${topic}`);
    expect(info.status).toBe(200);
    expect(violations(openapi, 'Topic', info.body)).toEqual([]);
    for (const path of [
      `/api/v1/topics/${topic}/messages/99`,
      '/api/v1/topics/0.0.999999/messages',
      `/api/v1/topics/${topic}/messages?limit=0`,
      '/api/v1/topics/not-an-id/messages',
    ]) {
      const error = await getJson(path);
      expect([400, 404]).toContain(error.status);
      expect(violations(openapi, 'Error', error.body)).toEqual([]);
    }
    for (const m of all) {
      expect(Buffer.from(m.running_hash, 'base64')).toHaveLength(48);
      expect(m.running_hash_version).toBe(3);
      expect(m.consensus_timestamp).toMatch(/^\d{10}\.\d{9}$/);
    }
  });

  it('filters by sequencenumber and timestamp, orders and limits', async () => {
    expect(await seqs('')).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs('?sequencenumber=gt:2')).toEqual([3, 4, 5]);
    expect(await seqs('?sequencenumber=gte:2&sequencenumber=lte:3')).toEqual([2, 3]);
    expect(await seqs('?sequencenumber=4')).toEqual([4]);
    expect(await seqs('?sequencenumber=eq:4')).toEqual([4]);
    expect(await seqs('?sequencenumber=lt:3')).toEqual([1, 2]);
    expect(await seqs('?order=desc')).toEqual([5, 4, 3, 2, 1]);
    const ts3 = all[2]?.consensus_timestamp;
    expect(await seqs(`?timestamp=gte:${ts3}`)).toEqual([3, 4, 5]);
    expect(await seqs(`?timestamp=lt:${ts3}`)).toEqual([1, 2]);
    expect(await seqs(`?timestamp=${ts3}`)).toEqual([3]);
    const text = await mirrorMessages(url, topic, '?sequencenumber=2&encoding=utf-8');
    expect(text.body.messages[0]?.message).toBe('two');
  });

  it('pages with links.next until the last page', async () => {
    const pages: number[][] = [];
    let next: string | null = `/api/v1/topics/${topic}/messages?limit=2`;
    while (next) {
      const res = await fetch(`${url}${next}`);
      const body = (await res.json()) as {
        messages: MirrorMessage[];
        links: { next: string | null };
      };
      pages.push(body.messages.map((m) => m.sequence_number));
      next = body.links.next;
      if (pages.length === 1)
        expect(next).toBe(`/api/v1/topics/${topic}/messages?limit=2&sequencenumber=gt:2`);
    }
    expect(pages).toEqual([[1, 2], [3, 4], [5]]);
    const desc = await mirrorMessages(url, topic, '?order=desc&limit=3');
    expect(desc.body.links.next).toBe(
      `/api/v1/topics/${topic}/messages?order=desc&limit=3&sequencenumber=lt:3`,
    );
  });

  it('rejects bad parameters with 400 and unknown topics or messages with 404', async () => {
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=x',
      'order=sideways',
      'sequencenumber=ne:1',
      'timestamp=gt:abc',
      'colour=red',
    ]) {
      expect((await getJson(`/api/v1/topics/${topic}/messages?${q}`)).status, q).toBe(400);
    }
    expect((await getJson('/api/v1/topics/0.0.999999/messages')).status).toBe(404);
    expect((await getJson(`/api/v1/topics/${topic}/messages/6`)).status).toBe(404);
    expect((await getJson('/api/v1/topics/0.0.999999')).status).toBe(404);
  });

  it('tamper flips the served running hash of one message, and restore undoes it', async () => {
    const honest = all[1];
    if (!honest) throw new Error('five messages expected');
    const bad = await postJson(`${url}/__standin/tamper`, { topicId: topic, sequenceNumber: 2 });
    expect(bad.status).toBe(200);
    const served = (await mirrorMessages(url, topic)).body.messages;
    expect(served[1]?.running_hash).not.toBe(honest.running_hash);
    expect(served[2]?.running_hash).toBe(all[2]?.running_hash);
    // A verifier recomputing the chain catches exactly that message.
    let hash = Buffer.alloc(48);
    const broken: number[] = [];
    for (const m of served) {
      const expected = expectedRunningHash(hash, m);
      if (expected.toString('base64') !== m.running_hash) broken.push(m.sequence_number);
      hash = Buffer.from(m.running_hash, 'base64');
    }
    expect(broken).toEqual([2, 3]);
    const restore = { topicId: topic, sequenceNumber: 2, restore: true };
    expect((await postJson(`${url}/__standin/tamper`, restore)).status).toBe(200);
    expect((await mirrorMessages(url, topic)).body.messages).toEqual(all);
    expect(
      (await postJson(`${url}/__standin/tamper`, { topicId: topic, sequenceNumber: 9 })).status,
    ).toBe(404);
  });
});
