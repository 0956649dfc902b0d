import type { AccountId as AccountIdType } from './hedera-sdk';
import {
  GrpcServiceError,
  GrpcStatus,
  Timestamp,
  TopicId,
  TopicMessageSubmitTransaction,
  TransactionId,
  TransactionReceiptQuery,
  TransactionRecordQuery,
  TransactionResponse,
} from './hedera-sdk';

/**
 * Parsing and printing ids goes through Long (~100-200 µs each in the
 * profile, several per Wire), so the ids this isolate made are kept as
 * objects by their text, and the operator and topics are printed and parsed
 * once.
 */
export class SdkIds {
  readonly #ids = new Map<string, TransactionId>();
  readonly #topics = new Map<string, TopicId>();
  #operator: [AccountIdType, string] | null = null;

  /** A transaction id valid from `at` (ns since the epoch), in TransactionId.toString's format. */
  make(operator: AccountIdType, at: bigint): string {
    if (this.#operator?.[0] !== operator) this.#operator = [operator, operator.toString()];
    const seconds = at / 1_000_000_000n;
    const nanos = at % 1_000_000_000n;
    const text = `${this.#operator[1]}@${seconds}.${String(nanos).padStart(9, '0')}`;
    this.#remember(
      text,
      TransactionId.withValidStart(operator, new Timestamp(Number(seconds), Number(nanos))),
    );
    return text;
  }

  transaction(text: string): TransactionId {
    let id = this.#ids.get(text);
    if (id === undefined) {
      id = TransactionId.fromString(text);
      this.#remember(text, id);
    }
    return id;
  }

  topic(text: string): TopicId {
    let id = this.#topics.get(text);
    if (id === undefined) {
      id = TopicId.fromString(text);
      this.#topics.set(text, id);
    }
    return id;
  }

  #remember(text: string, id: TransactionId): void {
    if (this.#ids.size >= 4096) {
      // Oldest first (insertion order): by then long anchored.
      for (const key of [...this.#ids.keys()].slice(0, 1024)) this.#ids.delete(key);
    }
    this.#ids.set(text, id);
  }
}

/** How long one attempt waits for a node's answer before the SDK tries again. */
export const GRPC_DEADLINE_MS = 5_000;

/*
 * The SDK arms a `grpcDeadline` timer for every attempt and never clears it:
 * seconds after the node answered, each one fires and builds a
 * GrpcServiceError (two stack captures) that nobody reads. At one submit per
 * Wire that was ~175 µs of workerd CPU per Wire (`node bench/ab.mjs --reps 4
 * --seconds 8 --open-only --rate 200`: 2,650 → 2,475 µs per append). The
 * requests below keep the same deadline but clear it when the answer comes:
 * the SDK sees no deadline of its own (`_grpcDeadline` always reads null, so
 * it arms nothing) and `_execute` races the node against a timer of ours,
 * failing with the same DEADLINE_EXCEEDED error the SDK's retry loop expects.
 */
const NO_SDK_DEADLINE: PropertyDescriptor = {
  get: () => null,
  set: () => {},
  configurable: true,
};

function withinDeadline<T>(answer: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new GrpcServiceError(GrpcStatus.DeadlineExceeded)),
      GRPC_DEADLINE_MS,
    );
  });
  return Promise.race([answer, expired]).finally(() => clearTimeout(timer));
}

type SubmitArgs = Parameters<TopicMessageSubmitTransaction['_execute']>;
type ReceiptArgs = Parameters<TransactionReceiptQuery['_execute']>;
type RecordArgs = Parameters<TransactionRecordQuery['_execute']>;

/*
 * The SDK names every request for its logger (`_getLogId`) on every attempt,
 * logger or not, by formatting a timestamp through Long and BigNumber: ~90 µs
 * of CPU per request, three requests per Wire. The subclasses below name the
 * request from the transaction id string we already hold.
 */

const NOT_HASHED = new Uint8Array(0);

/** One HCS chunk with the chunk info of the whole message. */
export class ChunkSubmit extends TopicMessageSubmitTransaction {
  constructor(
    private readonly topic: TopicId,
    private readonly bytes: Uint8Array,
    private readonly info: { initial: TransactionId; total: number; number: number },
    private readonly logId: string,
  ) {
    super({ topicId: topic, message: bytes });
  }

  override _getLogId(): string {
    return this.logId;
  }

  override _execute(...args: SubmitArgs) {
    return withinDeadline(super._execute(...args));
  }

  /*
   * The SDK hashes every signed transaction (SHA-384) for the response's
   * `transactionHash`, which nothing here reads: ~3 % of envelope mode's
   * anchoring CPU, one digest of the whole message per Wire. The rest is the
   * SDK's own `_mapResponse`: take the id, move to the next, answer.
   */
  protected override async _mapResponse(
    _response: unknown,
    nodeAccountId: AccountIdType,
    _request: unknown,
  ): Promise<TransactionResponse> {
    const transactionId = this._getTransactionId();
    this._transactionIds.advance();
    return new TransactionResponse({
      nodeId: nodeAccountId,
      transactionHash: NOT_HASHED,
      transactionId,
      transaction: this,
    });
  }

  protected override _makeTransactionData() {
    return {
      topicID: this.topic._toProtobuf(),
      message: this.bytes,
      chunkInfo: {
        initialTransactionID: this.info.initial._toProtobuf(),
        total: this.info.total,
        number: this.info.number,
      },
    };
  }
}

export class ReceiptQuery extends TransactionReceiptQuery {
  constructor(private readonly logId: string) {
    super();
  }

  override _getLogId(): string {
    return `receipt ${this.logId}`;
  }

  override _execute(...args: ReceiptArgs) {
    return withinDeadline(super._execute(...args));
  }
}

export class RecordQuery extends TransactionRecordQuery {
  constructor(private readonly logId: string) {
    super();
  }

  override _getLogId(): string {
    return `record ${this.logId}`;
  }

  override _execute(...args: RecordArgs) {
    return withinDeadline(super._execute(...args));
  }
}

for (const request of [ChunkSubmit, ReceiptQuery, RecordQuery]) {
  Object.defineProperty(request.prototype, '_grpcDeadline', NO_SDK_DEADLINE);
}

/*
 * Before it signs, the SDK decodes every body it has just encoded, to check
 * that the bodies (one per node) agree but for the node. A ChunkSubmit's
 * bodies are all made by `_makeTransactionData` above from the same fields,
 * so they agree by construction, and the check was ~3 % of envelope mode's
 * anchoring CPU (one protobuf decode of the whole message per Wire). The
 * method is private in the SDK's types, hence `defineProperty`.
 */
Object.defineProperty(ChunkSubmit.prototype, '_validateSignedTransactionBodies', {
  value: () => {},
  configurable: true,
});
