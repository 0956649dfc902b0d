/**
 * What the TopicObject needs from a consensus service. The HCS adapter
 * (`hcs-anchor.ts`) is the production implementation; anything else that can
 * order messages, hand out receipts and create topics could stand behind it.
 */
export interface Anchor {
  /** Payer account whose transactions this anchor signs. */
  operatorId(): Promise<string>;
  /** Creates a topic under a transaction id the caller recorded first. */
  createTopic(memo: string, transactionId: string): Promise<string>;
  /** The topic an earlier `createTopic` made, or null if it never reached consensus. */
  createdTopic(transactionId: string): Promise<string | null>;
  /**
   * Transaction ids for a message of `messageBytes`, one per chunk, chosen
   * before anything is sent so the caller can record them first. Unique
   * within this isolate only: the coordinator takes its valid starts from
   * the TopicDirectory instead (`transactionIdsAt`).
   */
  transactionIds(messageBytes: number): Promise<string[]>;
  /** The ids of a message whose first chunk's valid start is `validStartNs`, chunks 1 ns apart. */
  transactionIdsAt(validStartNs: bigint, messageBytes: number): Promise<string[]>;
  /**
   * Submits chunks `from..` of `message` with the recorded ids, in order.
   * Resolves when every chunk was accepted by the node now or earlier
   * (a duplicate transaction id counts as accepted).
   */
  submit(request: SubmitRequest): Promise<{ transactionId: string }>;
  /** The receipt now, without waiting for consensus. */
  getReceipt(transactionId: string): Promise<ReceiptResult>;
  /** The record now (a paid query on public networks: ask once the receipt is in). */
  getRecord(transactionId: string): Promise<ReceiptResult>;
}

export interface SubmitRequest {
  topicId: string;
  message: Uint8Array;
  transactionIds: string[];
  /** First chunk to send (earlier ones are known to be accepted). */
  from?: number;
}

export type ReceiptResult =
  | {
      status: 'success';
      sequenceNumber: number;
      runningHash: Uint8Array;
      /** "seconds.nanoseconds"; only records carry it. */
      consensusTimestamp: string | null;
    }
  /** Not (yet) known to the network: still in flight, lost, or never sent. */
  | { status: 'unknown' }
  | { status: 'failed'; reason: string };

export const CHUNK_BYTES = 1024;

/**
 * Valid starts are backdated a little (as the SDK does) so a node whose clock
 * is behind does not reject them as in the future.
 */
const VALID_START_BACKDATE_MS = 3000;

/**
 * The valid start (ns since the epoch) a new transaction id takes now, before
 * `nextValidStart`: backdated, with random nanoseconds. Sequences that know
 * nothing of each other (two deployments, or two test files, paying from one
 * account) would otherwise pick the same id whenever they ask within the same
 * millisecond, and HCS answers the second with the first's receipt.
 */
export function backdatedNow(): bigint {
  const ms = BigInt(Date.now() - VALID_START_BACKDATE_MS);
  return ms * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
}

/** The first valid start (ns) after `last` that is not before `now`: strictly increasing. */
export function nextValidStart(now: bigint, last: bigint): bigint {
  return now > last ? now : last + 1n;
}

/** How many HCS transactions a message of `messageBytes` takes. */
export function chunksOf(messageBytes: number): number {
  return Math.max(1, Math.ceil(messageBytes / CHUNK_BYTES));
}

/**
 * Failures the caller reacts to differently:
 *  - `retry`: transient (unavailable, BUSY, timeout); try again later.
 *  - `expired`: the transaction id can no longer be used; pick new ids once
 *    it is certain the old ones never reached consensus.
 *  - `rejected`: the network refused the transaction itself.
 */
export class AnchorError extends Error {
  constructor(
    readonly kind: 'retry' | 'expired' | 'rejected',
    message: string,
  ) {
    super(message);
    this.name = 'AnchorError';
  }
}
