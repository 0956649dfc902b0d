// The real SDK (gRPC-web build) against the stand-in started by the global
// setup: topics, messages, receipts, records and the mirror REST answers.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PrivateKey, Status } from '../../node_modules/@hashgraph/sdk/lib/browser.js';
import {
  createTopic,
  expectedRunningHash,
  mirrorMessages,
  sdkClient,
  standinInfo,
  submit,
} from './hedera-standin-sdk.js';

const url = inject('standinUrl');
const { client, info } = await sdkClient(url);
afterAll(() => client.close());

describe('hedera stand-in', () => {
  it('describes its network and operator at /__standin/info', async () => {
    const again = await standinInfo(url);
    expect(again).toEqual(info);
    expect(info.operatorId).toBe('0.0.2');
    expect(info.nodeAccountId).toBe('0.0.3');
    expect(info.network).toEqual({ [url.replace('http://', '')]: '0.0.3' });
    expect(PrivateKey.fromStringDer(info.operatorKey).publicKey.toStringRaw()).toBe(
      info.operatorPublicKey,
    );
  });

  it('anchors a message: receipt, record and mirror agree and the hash chain recomputes', async () => {
    const submitKey = PrivateKey.generateED25519();
    const topicId = await createTopic(client, submitKey);
    const first = await submit(client, topicId, 'hello wire', submitKey);
    const r1 = await (await first.execute(client)).getReceipt(client);
    expect(r1.status).toBe(Status.Success);
    expect(r1.topicSequenceNumber?.toNumber()).toBe(1);

    const second = await submit(client, topicId, 'second', submitKey);
    const response = await second.execute(client);
    const record = await response.getRecord(client);
    expect(record.receipt.topicSequenceNumber?.toNumber()).toBe(2);
    expect(Buffer.from(record.transactionHash)).toEqual(Buffer.from(response.transactionHash));

    const { status, body } = await mirrorMessages(url, topicId.toString());
    expect(status).toBe(200);
    expect(body.messages.map((m) => m.sequence_number)).toEqual([1, 2]);
    const [m1, m2] = body.messages;
    if (!m1 || !m2) throw new Error('two messages expected');
    expect(Buffer.from(m1.message, 'base64').toString()).toBe('hello wire');
    expect(m1.payer_account_id).toBe('0.0.2');
    // The SDK sends chunk info 1/1 even for a short message; the mirror shows it.
    expect(m1.chunk_info).toMatchObject({ number: 1, total: 1 });
    expect(m1.chunk_info?.initial_transaction_id.account_id).toBe('0.0.2');
    const h1 = expectedRunningHash(Buffer.alloc(48), m1);
    expect(m1.running_hash).toBe(h1.toString('base64'));
    expect(Buffer.from(r1.topicRunningHash ?? [])).toEqual(h1);
    const h2 = expectedRunningHash(h1, m2);
    expect(m2.running_hash).toBe(h2.toString('base64'));
    expect(m2.consensus_timestamp).toBe(record.consensusTimestamp.toString());
    expect(m2.consensus_timestamp > m1.consensus_timestamp).toBe(true);
  });
});
