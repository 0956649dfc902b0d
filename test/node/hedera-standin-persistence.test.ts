// The stand-in's ledger survives a restart when it has a data file: same
// operator key, same topics and messages, and the chain continues.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type PrecheckStatusError,
  Status,
  TopicMessageSubmitTransaction,
  TransactionReceiptQuery,
} from '../../node_modules/@hashgraph/sdk/lib/browser.js';
import { startStandin } from '../../tools/hedera-standin/index.mjs';
import {
  createTopic,
  expectedRunningHash,
  mirrorMessages,
  sdkClient,
  submit,
} from './hedera-standin-sdk.js';

const dir = mkdtempSync(join(tmpdir(), 'standin-'));
const dataFile = join(dir, 'hedera.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stand-in persistence', () => {
  it('keeps operator, topics, messages, receipts and duplicate ids across a restart', async () => {
    const first = await startStandin({ dataFile });
    const a = await sdkClient(first.url);
    const topicId = await createTopic(a.client);
    const tx = await submit(a.client, topicId, 'before restart');
    const response = await tx.execute(a.client);
    await response.getReceipt(a.client);
    const before = (await mirrorMessages(first.url, topicId.toString())).body.messages;
    a.client.close();
    await first.close();
    // A process killed mid-write leaves a torn last line; it must not block startup.
    appendFileSync(dataFile, '{"t":"msg","message":{"topi');

    const second = await startStandin({ dataFile });
    try {
      const b = await sdkClient(second.url);
      expect(b.info.operatorKey).toBe(a.info.operatorKey);
      expect((await mirrorMessages(second.url, topicId.toString())).body.messages).toEqual(before);
      const receipt = await new TransactionReceiptQuery()
        .setTransactionId(response.transactionId)
        .execute(b.client);
      expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);

      const replay = new TopicMessageSubmitTransaction()
        .setTopicId(topicId)
        .setMessage('before restart')
        .setTransactionId(response.transactionId)
        .freezeWith(b.client);
      const error = await replay.execute(b.client).catch((e: unknown) => e);
      expect((error as PrecheckStatusError).status).toBe(Status.DuplicateTransaction);

      const next = await submit(b.client, topicId, 'after restart');
      const r2 = await (await next.execute(b.client)).getReceipt(b.client);
      expect(r2.topicSequenceNumber?.toNumber()).toBe(2);
      const after = (await mirrorMessages(second.url, topicId.toString())).body.messages;
      const [m1, m2] = after;
      if (!m1 || !m2) throw new Error('two messages expected');
      expect(m2.consensus_timestamp > m1.consensus_timestamp).toBe(true);
      expect(m2.running_hash).toBe(
        expectedRunningHash(Buffer.from(m1.running_hash, 'base64'), m2).toString('base64'),
      );
      const another = await createTopic(b.client);
      expect(another.num.toNumber()).toBe(topicId.num.toNumber() + 1);
      b.client.close();
    } finally {
      await second.close();
    }
    const third = await startStandin({ dataFile });
    try {
      const seen = (await mirrorMessages(third.url, topicId.toString())).body.messages;
      expect(seen.map((m) => m.sequence_number)).toEqual([1, 2]);
    } finally {
      await third.close();
    }
  });

  it('without a data file the ledger lives in memory only', async () => {
    const one = await startStandin();
    const two = await startStandin();
    try {
      const [x, y] = [await sdkClient(one.url), await sdkClient(two.url)];
      expect(x.info.operatorKey).not.toBe(y.info.operatorKey);
      x.client.close();
      y.client.close();
    } finally {
      await one.close();
      await two.close();
    }
  });
});
