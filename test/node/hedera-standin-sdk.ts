// Helpers for tests that drive the real SDK (its gRPC-web build, as the
// Worker uses it) against the stand-in network.
import { createHash } from 'node:crypto';
import {
  PrivateKey,
  TopicCreateTransaction,
  type TopicId,
  TopicMessageSubmitTransaction,
  type TransactionId,
  WebClient,
} from '../../node_modules/@hashgraph/sdk/lib/browser.js';

export interface StandinInfo {
  operatorId: string;
  operatorKey: string;
  operatorPublicKey: string;
  nodeAccountId: string;
  network: Record<string, string>;
  grpcUrl: string;
  mirrorUrl: string;
}

export async function standinInfo(url: string): Promise<StandinInfo> {
  const res = await fetch(`${url}/__standin/info`);
  return (await res.json()) as StandinInfo;
}

export async function sdkClient(url: string) {
  const info = await standinInfo(url);
  const client = WebClient.forNetwork(info.network);
  client.setOperator(info.operatorId, PrivateKey.fromStringDer(info.operatorKey));
  return { client, info };
}

export async function createTopic(client: WebClient, submitKey?: PrivateKey): Promise<TopicId> {
  const create = new TopicCreateTransaction().setTopicMemo('test');
  if (submitKey) create.setSubmitKey(submitKey.publicKey);
  const receipt = await (await create.execute(client)).getReceipt(client);
  if (!receipt.topicId) throw new Error('createTopic receipt has no topic id');
  return receipt.topicId;
}

export async function submit(
  client: WebClient,
  topicId: TopicId,
  message: string | Uint8Array,
  key?: PrivateKey,
) {
  const tx = new TopicMessageSubmitTransaction()
    .setTopicId(topicId)
    .setMessage(message)
    .freezeWith(client);
  if (key) await tx.sign(key);
  return tx;
}

/** A message transaction under a chosen id, frozen: sent twice, it is the same transaction. */
export function submitUnder(
  client: WebClient,
  topicId: TopicId,
  message: string,
  transactionId: TransactionId,
) {
  return new TopicMessageSubmitTransaction()
    .setTopicId(topicId)
    .setMessage(message)
    .setTransactionId(transactionId)
    .freezeWith(client);
}

export async function postJson(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

export interface MirrorMessage {
  chunk_info: null | {
    initial_transaction_id: {
      account_id: string;
      nonce: number;
      scheduled: boolean;
      transaction_valid_start: string;
    };
    number: number;
    total: number;
  };
  consensus_timestamp: string;
  message: string;
  payer_account_id: string;
  running_hash: string;
  running_hash_version: number;
  sequence_number: number;
  topic_id: string;
}

export async function mirrorMessages(url: string, topicId: string, query = '') {
  const res = await fetch(`${url}/api/v1/topics/${topicId}/messages${query}`);
  return {
    status: res.status,
    body: (await res.json()) as { messages: MirrorMessage[]; links: { next: string | null } },
  };
}

/** Running hash v3, written out independently of the stand-in's code. */
export function expectedRunningHash(previous: Buffer, m: MirrorMessage): Buffer {
  const ids = (s: string) => s.split('.').map((x) => BigInt(x));
  const [sec = '0', nanos = '0'] = m.consensus_timestamp.split('.');
  const parts: Buffer[] = [previous];
  const u64 = (v: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(v);
    parts.push(b);
  };
  u64(3n);
  for (const v of ids(m.payer_account_id)) u64(v);
  for (const v of ids(m.topic_id)) u64(v);
  u64(BigInt(sec));
  const n = Buffer.alloc(4);
  n.writeUInt32BE(Number(nanos));
  parts.push(n);
  u64(BigInt(m.sequence_number));
  parts.push(createHash('sha384').update(Buffer.from(m.message, 'base64')).digest());
  return createHash('sha384').update(Buffer.concat(parts)).digest();
}
