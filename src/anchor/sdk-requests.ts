import type { AccountId as AccountIdType } from './hedera-sdk';
import {
  Timestamp,
  TopicId,
  TopicMessageSubmitTransaction,
  TransactionId,
  TransactionReceiptQuery,
  TransactionRecordQuery,
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

/*
 * The SDK names every request for its logger (`_getLogId`) on every attempt,
 * logger or not, by formatting a timestamp through Long and BigNumber: ~90 µs
 * of CPU per request, three requests per Wire. These subclasses name the
 * request from the transaction id string we already hold.
 */

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
}

export class RecordQuery extends TransactionRecordQuery {
  constructor(private readonly logId: string) {
    super();
  }

  override _getLogId(): string {
    return `record ${this.logId}`;
  }
}
