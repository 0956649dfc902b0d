import {
  type Anchor,
  AnchorError,
  backdatedNow,
  CHUNK_BYTES,
  chunksOf,
  nextValidStart,
  type ReceiptResult,
  type SubmitRequest,
} from './anchor';
import type { HederaConfig } from './config';
import {
  AccountId,
  Client,
  type Hbar,
  MaxAttemptsOrTimeoutError,
  PrecheckStatusError,
  PrivateKey,
  Status,
  type Timestamp,
  TopicCreateTransaction,
  TransactionId,
  TransactionReceiptQuery,
} from './hedera-sdk';
import { localOperator } from './local-standin';
import { ChunkSubmit, GRPC_DEADLINE_MS, ReceiptQuery, RecordQuery, SdkIds } from './sdk-requests';
import { webCryptoSigner } from './webcrypto-signer';

/**
 * The Hedera Consensus Service behind the `Anchor` interface, through the
 * SDK's WebClient (gRPC-web over fetch). In workerd `@hashgraph/sdk` must
 * resolve to `lib/browser.js` (wrangler.toml [alias]): the Node build calls
 * `http2.connect`, which workerd does not implement.
 */
export class HcsAnchor implements Anchor {
  #client: Promise<{ client: Client; operator: AccountId }> | null = null;
  #lastValidStart = 0n;
  #recordCost: Promise<Hbar> | null = null;
  readonly #ids = new SdkIds();

  constructor(private readonly config: HederaConfig) {}

  async operatorId(): Promise<string> {
    return (await this.#connected()).operator.toString();
  }

  async createTopic(memo: string, transactionId: string): Promise<string> {
    const { client } = await this.#connected();
    try {
      // No submit key: agents on the HCS-first path write to the topic
      // directly, and the listener validates every Wire it ingests.
      await new TopicCreateTransaction()
        .setTopicMemo(memo.slice(0, 100))
        .setTransactionId(TransactionId.fromString(transactionId))
        .setRegenerateTransactionId(false)
        .setMaxAttempts(4)
        .setMaxBackoff(1000)
        .execute(client);
    } catch (error) {
      const duplicate =
        error instanceof PrecheckStatusError && error.status === Status.DuplicateTransaction;
      if (!duplicate) throw classify(error);
    }
    const topic = await this.createdTopic(transactionId);
    if (topic === null)
      throw new AnchorError('retry', 'topic creation has not reached consensus yet');
    return topic;
  }

  async createdTopic(transactionId: string): Promise<string | null> {
    const { client } = await this.#connected();
    try {
      // Waits through consensus (3-5 s on Hedera): ~20 s of bounded retries.
      const receipt = await new TransactionReceiptQuery()
        .setTransactionId(TransactionId.fromString(transactionId))
        .setMaxAttempts(25)
        .setMaxBackoff(1000)
        .execute(client);
      return receipt.topicId?.toString() ?? null;
    } catch (error) {
      if (error instanceof MaxAttemptsOrTimeoutError) return null;
      throw classify(error);
    }
  }

  async transactionIds(messageBytes: number): Promise<string[]> {
    const chunks = chunksOf(messageBytes);
    const start = nextValidStart(backdatedNow(), this.#lastValidStart);
    this.#lastValidStart = start + BigInt(chunks) - 1n;
    return this.transactionIdsAt(start, messageBytes);
  }

  async transactionIdsAt(validStartNs: bigint, messageBytes: number): Promise<string[]> {
    const { operator } = await this.#connected();
    const ids: string[] = [];
    for (let i = 0; i < chunksOf(messageBytes); i++) {
      ids.push(this.#ids.make(operator, validStartNs + BigInt(i)));
    }
    return ids;
  }

  async submit(request: SubmitRequest): Promise<{ transactionId: string }> {
    const { client } = await this.#connected();
    const { message, transactionIds } = request;
    const initial = this.#ids.transaction(transactionIds[0] ?? '');
    for (let i = request.from ?? 0; i < transactionIds.length; i++) {
      const chunk = new ChunkSubmit(
        this.#ids.topic(request.topicId),
        message.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
        { initial, total: transactionIds.length, number: i + 1 },
        `submit ${transactionIds[i] ?? ''}`,
      )
        .setTransactionId(this.#ids.transaction(transactionIds[i] ?? ''))
        .setRegenerateTransactionId(false)
        .setMaxAttempts(4)
        .setMaxBackoff(1000);
      try {
        await chunk.execute(client);
      } catch (error) {
        // Accepted before (e.g. its response was lost): nothing to resend.
        if (error instanceof PrecheckStatusError && error.status === Status.DuplicateTransaction) {
          continue;
        }
        throw classify(error);
      }
    }
    return { transactionId: transactionIds[0] ?? '' };
  }

  async getReceipt(transactionId: string): Promise<ReceiptResult> {
    const { client } = await this.#connected();
    try {
      const receipt = await new ReceiptQuery(transactionId)
        .setTransactionId(this.#ids.transaction(transactionId))
        .setValidateStatus(false)
        .setMaxAttempts(1)
        .setMinBackoff(1)
        .setMaxBackoff(1)
        .execute(client);
      return resultOf(receipt, null);
    } catch (error) {
      return unknownOrThrow(error);
    }
  }

  async getRecord(transactionId: string): Promise<ReceiptResult> {
    const { client } = await this.#connected();
    const query = new RecordQuery(transactionId)
      .setTransactionId(this.#ids.transaction(transactionId))
      .setValidateReceiptStatus(false)
      .setMaxAttempts(1)
      .setMinBackoff(1)
      .setMaxBackoff(1);
    try {
      // A record query is paid, and the SDK asks its price first (another
      // signed round trip) unless the payment is set. The price is the fee
      // schedule's, the same for every record: asked once per isolate, and
      // asked again only if the network refuses what was paid.
      this.#recordCost ??= query.getCost(client).catch((error: unknown) => {
        this.#recordCost = null;
        throw error;
      });
      query.setQueryPayment(await this.#recordCost);
      const record = await query.execute(client);
      // Asked before consensus: the receipt says UNKNOWN and there is no time yet.
      const ts = record.consensusTimestamp as Timestamp | null | undefined;
      if (!ts) return resultOf(record.receipt, null, { unknownUnlessFailed: true });
      const at = `${ts.seconds.toString()}.${ts.nanos.toString().padStart(9, '0')}`;
      return resultOf(record.receipt, at);
    } catch (error) {
      if (error instanceof PrecheckStatusError && error.status === Status.InsufficientTxFee) {
        this.#recordCost = null; // the fee schedule changed: ask again next time
        return { status: 'unknown' };
      }
      return unknownOrThrow(error);
    }
  }

  #connected(): Promise<{ client: Client; operator: AccountId }> {
    this.#client ??= this.#connect().catch((error: unknown) => {
      this.#client = null; // the stand-in may not be up yet: try again next time
      throw error instanceof AnchorError ? error : new AnchorError('retry', String(error));
    });
    return this.#client;
  }

  async #connect(): Promise<{ client: Client; operator: AccountId }> {
    const { config } = this;
    let operatorId = config.operatorId;
    let operatorKey = config.operatorKey;
    let client: Client;
    if (config.network === 'local') {
      const info = await localOperator(config.localUrl);
      operatorId ??= info.operatorId;
      operatorKey ??= info.operatorKey;
      const host = info.grpcUrl.replace(/^https?:\/\//, '').replace(/\/$/, '');
      client = new Client({
        network: { [host]: info.nodeAccountId },
        scheduleNetworkUpdate: false,
      });
    } else {
      client = new Client({ network: config.network, scheduleNetworkUpdate: false });
    }
    if (!operatorId || !operatorKey) {
      throw new AnchorError('rejected', 'HEDERA_OPERATOR_ID and HEDERA_OPERATOR_KEY must be set');
    }
    const key = PrivateKey.fromStringDer(operatorKey);
    const operator = AccountId.fromString(operatorId);
    client.setOperatorWith(operator, key.publicKey, await webCryptoSigner(operatorKey, key));
    // Bounded retries inside the SDK, set per request (a client-wide
    // maxAttempts would override every request's own); the TopicObject's alarm
    // does the long backoff.
    client.setMinBackoff(100).setMaxBackoff(1000);
    // A node that failed is shunned for 8 s by default: too long for one node
    // (the stand-in) and for an alarm that already backs off on its own.
    client.setNodeMinBackoff(250).setNodeMaxBackoff(4000);
    client.setNodeMinReadmitPeriod(250).setNodeMaxReadmitPeriod(4000);
    client.setGrpcDeadline(GRPC_DEADLINE_MS).setRequestTimeout(15_000);
    client.setDefaultRegenerateTransactionId(false);
    return { client, operator };
  }
}

interface ReceiptLike {
  status: Status;
  topicSequenceNumber: { toNumber(): number } | null;
  topicRunningHash: Uint8Array | null;
}

function resultOf(
  receipt: ReceiptLike,
  consensusTimestamp: string | null,
  { unknownUnlessFailed = false } = {},
): ReceiptResult {
  if (receipt.status === Status.Success && !unknownUnlessFailed) {
    return {
      status: 'success',
      sequenceNumber: receipt.topicSequenceNumber?.toNumber() ?? 0,
      runningHash: receipt.topicRunningHash ?? new Uint8Array(),
      consensusTimestamp,
    };
  }
  if (
    receipt.status === Status.Success ||
    receipt.status === Status.Unknown ||
    receipt.status === Status.ReceiptNotFound
  ) {
    return { status: 'unknown' };
  }
  return { status: 'failed', reason: receipt.status.toString() };
}

function unknownOrThrow(error: unknown): ReceiptResult {
  if (error instanceof MaxAttemptsOrTimeoutError) return { status: 'unknown' };
  if (error instanceof PrecheckStatusError) {
    const s = error.status;
    if (s === Status.ReceiptNotFound || s === Status.RecordNotFound || s === Status.Unknown) {
      return { status: 'unknown' };
    }
  }
  throw classify(error);
}

/**
 * While the SDK backs off every node (after failed requests, up to
 * `setNodeMaxBackoff`), it freezes a transaction for no node at all and then
 * refuses to sign it with this message. `GET /v1/topics` shows an anchoring
 * failure to operators, so it names the cause instead.
 */
const NO_NODE_TO_FREEZE_FOR = /transaction must have been frozen/;

function classify(error: unknown): AnchorError {
  if (error instanceof AnchorError) return error;
  if (error instanceof Error && NO_NODE_TO_FREEZE_FOR.test(error.message)) {
    return new AnchorError(
      'retry',
      'no consensus node is available: the SDK is backing off every node after failed requests; the next pass tries again',
    );
  }
  if (error instanceof PrecheckStatusError) {
    if (error.status === Status.TransactionExpired)
      return new AnchorError('expired', error.message);
    const transient = [Status.Busy, Status.PlatformNotActive, Status.PlatformTransactionNotCreated];
    return new AnchorError(transient.includes(error.status) ? 'retry' : 'rejected', error.message);
  }
  return new AnchorError('retry', error instanceof Error ? error.message : String(error));
}
