// The real SDK (gRPC-web build) against the stand-in started by the global
// setup: topics, messages, receipts, records and the mirror REST answers.
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  PrecheckStatusError,
  PrivateKey,
  ReceiptStatusError,
  Status,
  TopicMessageSubmitTransaction,
  TransactionId,
  TransactionRecordQuery,
  WebClient,
} from '../../node_modules/@hashgraph/sdk/lib/browser.js';
import { entityNum, nextRunningHash, splitTimestamp } from '../../src/anchor/running-hash.js';
import {
  createTopic,
  expectedRunningHash,
  mirrorMessages,
  sdkClient,
  standinInfo,
  submit,
  submitUnder,
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
    // The Worker's own verifier (WebCrypto) agrees with the stand-in's hashes.
    const { seconds, nanos } = splitTimestamp(m2.consensus_timestamp);
    const workerHash = await nextRunningHash({
      previous: h1,
      payer: entityNum(m2.payer_account_id),
      topic: entityNum(m2.topic_id),
      consensusSeconds: seconds,
      consensusNanos: nanos,
      sequenceNumber: m2.sequence_number,
      message: Buffer.from(m2.message, 'base64'),
    });
    expect(Buffer.from(workerHash)).toEqual(h2);
    // A record costs a paid query; the cost query answers first.
    const cost = await new TransactionRecordQuery()
      .setTransactionId(response.transactionId)
      .getCost(client);
    expect(cost.toTinybars().toNumber()).toBeGreaterThanOrEqual(100_000); // the SDK adds a margin
    expect(m2.consensus_timestamp > m1.consensus_timestamp).toBe(true);
  });

  it('splits a message over 1024 bytes into chunks the mirror shows with chunk_info', async () => {
    const topicId = await createTopic(client);
    const text = Array.from({ length: 2500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(
      '',
    );
    const tx = await submit(client, topicId, text);
    const responses = await tx.executeAll(client);
    expect(responses).toHaveLength(3);
    for (const r of responses) expect((await r.getReceipt(client)).status).toBe(Status.Success);

    const { body } = await mirrorMessages(url, topicId.toString());
    expect(body.messages.map((m) => m.chunk_info?.number)).toEqual([1, 2, 3]);
    const initial = body.messages[0]?.chunk_info?.initial_transaction_id;
    expect(initial?.account_id).toBe('0.0.2');
    for (const m of body.messages) {
      expect(m.chunk_info?.total).toBe(3);
      expect(m.chunk_info?.initial_transaction_id).toEqual(initial);
      expect(Buffer.from(m.message, 'base64').length).toBeLessThanOrEqual(1024);
    }
    const joined = body.messages.map((m) => Buffer.from(m.message, 'base64').toString()).join('');
    expect(joined).toBe(text);
    let hash: Buffer = Buffer.alloc(48);
    for (const m of body.messages) {
      hash = expectedRunningHash(hash, m);
      expect(m.running_hash).toBe(hash.toString('base64'));
    }
  });

  it('rejects a chunk over 1024 bytes at consensus with MESSAGE_SIZE_TOO_LARGE', async () => {
    const topicId = await createTopic(client);
    const tx = new TopicMessageSubmitTransaction()
      .setTopicId(topicId)
      .setChunkSize(2000)
      .setMessage('x'.repeat(1500))
      .freezeWith(client);
    const response = await tx.execute(client);
    const error = await response.getReceipt(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReceiptStatusError);
    expect((error as ReceiptStatusError).status).toBe(Status.MessageSizeTooLarge);
    expect((await mirrorMessages(url, topicId.toString())).body.messages).toEqual([]);
  });

  it('enforces the submit key: unsigned or wrongly signed messages fail with INVALID_SIGNATURE', async () => {
    const submitKey = PrivateKey.generateED25519();
    const topicId = await createTopic(client, submitKey);
    for (const key of [undefined, PrivateKey.generateED25519()]) {
      const tx = await submit(client, topicId, 'not allowed', key);
      const error = await (await tx.execute(client)).getReceipt(client).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReceiptStatusError);
      expect((error as ReceiptStatusError).status).toBe(Status.InvalidSignature);
    }
    const ok = await submit(client, topicId, 'allowed', submitKey);
    const receipt = await (await ok.execute(client)).getReceipt(client);
    expect(receipt.topicSequenceNumber?.toNumber()).toBe(1);
    const { body } = await mirrorMessages(url, topicId.toString());
    expect(body.messages.map((m) => Buffer.from(m.message, 'base64').toString())).toEqual([
      'allowed',
    ]);
  });

  it("refuses a payer whose signature is not its account key's (precheck INVALID_SIGNATURE)", async () => {
    const topicId = await createTopic(client);
    const impostor = WebClient.forNetwork(info.network);
    impostor.setOperator(info.operatorId, PrivateKey.generateED25519());
    try {
      const tx = await submit(impostor, topicId, 'forged');
      const error = await tx.execute(impostor).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PrecheckStatusError);
      expect((error as PrecheckStatusError).status).toBe(Status.InvalidSignature);
    } finally {
      impostor.close();
    }
  });

  it('rejects a second transaction with the same id as DUPLICATE_TRANSACTION', async () => {
    const topicId = await createTopic(client);
    const id = TransactionId.generate(info.operatorId);
    const first = submitUnder(client, topicId, 'once', id);
    await (await first.execute(client)).getReceipt(client);
    const again = submitUnder(client, topicId, 'twice', id);
    const error = await again.execute(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrecheckStatusError);
    expect((error as PrecheckStatusError).status).toBe(Status.DuplicateTransaction);
    expect((await mirrorMessages(url, topicId.toString())).body.messages).toHaveLength(1);
  });
});
