// Each fault mode of the stand-in, observed through the real SDK and the
// mirror REST API. This file runs its own stand-in so network-wide faults do
// not disturb other test files. Delays are generous: the machine may be loaded.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type PrecheckStatusError,
  Status,
  type TopicId,
  TransactionReceiptQuery,
} from '../../node_modules/@hashgraph/sdk/lib/browser.js';
import { startStandin } from '../../tools/hedera-standin/index.mjs';
import {
  createTopic,
  mirrorMessages,
  postJson,
  sdkClient,
  submit,
  submitUnder,
} from './hedera-standin-sdk.js';

const standin = await startStandin();
const { url } = standin;
const { client } = await sdkClient(url);
// One node only: after a failed call the SDK benches it; let it come back fast.
client.setNodeMinBackoff(50);
client.setNodeMaxBackoff(200);
client.setNodeMinReadmitPeriod(50);
client.setNodeMaxReadmitPeriod(200);
afterAll(async () => {
  client.close();
  await standin.close();
});
beforeEach(async () => {
  await postJson(`${url}/__standin/reset-faults`, {});
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const faults = (body: unknown) => postJson(`${url}/__standin/faults`, body);
/** Submits `text` and checks it is the topic's first and only message, on the mirror too. */
async function expectOnlyMessage(topicId: TopicId, text: string) {
  const tx = await submit(client, topicId, text);
  const receipt = await (await tx.execute(client)).getReceipt(client);
  expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);
  expect(await texts(topicId.toString())).toEqual([text]);
}
const texts = async (topicId: string) =>
  (await mirrorMessages(url, topicId)).body.messages.map((m) =>
    Buffer.from(m.message, 'base64').toString(),
  );

describe('stand-in fault modes', () => {
  it('validates fault specs and reports the active ones', async () => {
    expect((await faults({ busy: -1 })).status).toBe(400);
    expect((await faults({ explode: true })).status).toBe(400);
    expect((await faults({ topicId: 'nope', busy: 1 })).status).toBe(400);
    const set = await faults({ topicId: '0.0.9999', busy: 2, mirrorLagMs: 10 });
    expect(set).toEqual({ status: 200, body: { '0.0.9999': { busy: 2, mirrorLagMs: 10 } } });
    const cleared = await faults({ topicId: '0.0.9999' });
    expect(cleared).toEqual({ status: 200, body: {} });
  });

  it('busy: the next n submits answer BUSY, then the node accepts again', async () => {
    const topicId = await createTopic(client);
    await faults({ busy: 1 });
    const tx = (await submit(client, topicId, 'busy')).setMaxAttempts(1);
    await expect(tx.execute(client)).rejects.toThrow(/BUSY/);
    await expectOnlyMessage(topicId, 'after busy');
  });

  it('unavailable: nothing is accepted while the node is down; it works again after', async () => {
    const topicId = await createTopic(client);
    await faults({ unavailable: true });
    const health = await fetch(url, { method: 'POST', body: new Uint8Array(0) });
    expect(health.status).toBe(503);
    const down = await submit(client, topicId, 'while down');
    await expect(down.execute(client)).rejects.toThrow(/unhealthy|UNAVAILABLE/i);
    await faults({});
    await sleep(250);
    await expectOnlyMessage(topicId, 'back up');
  });

  it('receiptDelayMs: receipts say UNKNOWN and the mirror is silent until consensus', async () => {
    const topicId = await createTopic(client);
    await faults({ topicId: topicId.toString(), receiptDelayMs: 1500 });
    const started = Date.now();
    const tx = await submit(client, topicId, 'slow consensus');
    const response = await tx.execute(client);
    const early = new TransactionReceiptQuery()
      .setTransactionId(response.transactionId)
      .setMaxAttempts(1);
    await expect(early.execute(client)).rejects.toThrow(/UNKNOWN/);
    expect(await texts(topicId.toString())).toEqual([]);
    const receipt = await response.getReceipt(client);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1450);
    expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);
    expect(await texts(topicId.toString())).toEqual(['slow consensus']);
  });

  it('loseReceipts: the submit errors, yet the message is on the topic exactly once', async () => {
    const topicId = await createTopic(client);
    await faults({ topicId: topicId.toString(), loseReceipts: 1 });
    const tx = await submit(client, topicId, 'accepted in the dark');
    const txId = tx.transactionId;
    if (!txId) throw new Error('frozen transaction has an id');
    await expect(tx.execute(client)).rejects.toThrow();
    await sleep(250);
    const receipt = await new TransactionReceiptQuery().setTransactionId(txId).execute(client);
    expect(receipt.status).toBe(Status.Success);
    expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);
    // Resubmitting the very same transaction cannot anchor it twice.
    const again = submitUnder(client, topicId, 'accepted in the dark', txId);
    const error = await again.execute(client).catch((e: unknown) => e);
    expect((error as PrecheckStatusError).status).toBe(Status.DuplicateTransaction);
    expect(await texts(topicId.toString())).toEqual(['accepted in the dark']);
  });

  it('answerDelayMs: the submit is on the topic at once, its answer comes late', async () => {
    const topicId = await createTopic(client);
    expect((await faults({ topicId: topicId.toString(), answerDelayMs: -5 })).status).toBe(400);
    await faults({ topicId: topicId.toString(), answerDelayMs: 800 });
    const tx = await submit(client, topicId, 'slow answer');
    const started = Date.now();
    const answered = tx.execute(client);
    await sleep(300);
    expect(await texts(topicId.toString())).toEqual(['slow answer']);
    await answered;
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
  });

  it('mirrorLagMs: receipts are immediate, the mirror shows the message later', async () => {
    const topicId = await createTopic(client);
    await faults({ topicId: topicId.toString(), mirrorLagMs: 1500 });
    const tx = await submit(client, topicId, 'lagging');
    const receipt = await (await tx.execute(client)).getReceipt(client);
    expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);
    expect(await texts(topicId.toString())).toEqual([]);
    const one = await fetch(`${url}/api/v1/topics/${topicId}/messages/1`);
    expect(one.status).toBe(404);
    await sleep(1550);
    expect(await texts(topicId.toString())).toEqual(['lagging']);
  });

  it('a fault scoped to one topic leaves other topics alone', async () => {
    const [a, b] = [await createTopic(client), await createTopic(client)];
    await faults({ topicId: a.toString(), busy: 5, mirrorLagMs: 60_000 });
    const onB = await submit(client, b, 'unaffected');
    await (await onB.setMaxAttempts(1).execute(client)).getReceipt(client);
    expect(await texts(b.toString())).toEqual(['unaffected']);
    const onA = (await submit(client, a, 'busy topic')).setMaxAttempts(1);
    await expect(onA.execute(client)).rejects.toThrow(/BUSY/);
  });
});
