// Types for TypeScript callers (tests, global setup) of the plain-ESM stand-in.

export interface FaultSpec {
  /** Every gRPC call (and the health check) answers UNAVAILABLE. */
  unavailable?: boolean;
  /** The next n submits answer precheck BUSY. */
  busy?: number;
  /** Consensus latency: receipts say UNKNOWN (and the mirror hides the message) until then. */
  receiptDelayMs?: number;
  /** The next n submits reach consensus but their response is dropped (connection reset). */
  loseReceipts?: number;
  /** Submits are taken (and reach consensus) at once, but the node answers only this much later. */
  answerDelayMs?: number;
  /** Messages reach the mirror REST API this long after consensus. */
  mirrorLagMs?: number;
  /** The mirror REST API answers 503 for the topic's messages. */
  mirrorUnavailable?: boolean;
  /** Submits of a message's 2nd and later chunks answer UNAVAILABLE (an outage begun mid-message). */
  laterChunksUnavailable?: boolean;
  /** Transaction ids made before this fault was set are expired (an outage longer than their valid duration). */
  expireOlderIds?: boolean;
}

export interface StandinLedger {
  readonly operator: { accountId: string; publicKeyHex: string; privateKeyDerHex: string };
  readonly topics: Map<string, { topicId: string; sequenceNumber: number; runningHash: string }>;
}

export interface Standin {
  port: number;
  /** http://127.0.0.1:PORT: gRPC-web node, mirror REST and /__standin/ controls. */
  url: string;
  ledger: StandinLedger;
  close(): Promise<void>;
}

export function startStandin(options?: {
  port?: number;
  host?: string;
  /** JSON-lines ledger file kept across restarts; in memory when absent. */
  dataFile?: string;
  /** How long a node keeps receipts and records after consensus (Hedera: 180 s). */
  receiptTtlMs?: number;
}): Promise<Standin>;
