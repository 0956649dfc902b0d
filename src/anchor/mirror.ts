import * as z from 'zod';
import { fromBase64 } from '../protocol/base64';

/**
 * Mirror node REST reader for topic messages. Every answer is parsed with zod
 * against the public mirror node's field names (see
 * shared/reference/mirror-node-topics.openapi.yml).
 */
const EntityId = z.string().regex(/^\d+\.\d+\.\d+$/);
const Timestamp = z.string().regex(/^\d+\.\d{1,9}$/);

export const MirrorTransactionId = z.object({
  account_id: EntityId.nullable(),
  nonce: z.int().nullable().optional(),
  scheduled: z.boolean().nullable().optional(),
  transaction_valid_start: Timestamp,
});

export const MirrorMessage = z.object({
  consensus_timestamp: Timestamp,
  topic_id: EntityId,
  message: z.string(),
  payer_account_id: EntityId,
  running_hash: z.string(),
  running_hash_version: z.int(),
  sequence_number: z.int().min(1),
  chunk_info: z
    .object({
      initial_transaction_id: MirrorTransactionId,
      number: z.int().min(1),
      total: z.int().min(1),
    })
    .nullable()
    .optional(),
});
export type MirrorMessage = z.infer<typeof MirrorMessage>;

export const MirrorPage = z.object({
  messages: z.array(MirrorMessage),
  links: z.object({ next: z.string().nullable() }),
});

/** Messages with `sequence_number > afterSeq`, ascending, one page. */
export async function readTopicMessages(
  mirrorUrl: string,
  topicId: string,
  afterSeq: number,
  limit = 100,
): Promise<{ messages: MirrorMessage[]; hasMore: boolean }> {
  const url = `${mirrorUrl}/api/v1/topics/${topicId}/messages?sequencenumber=gt:${afterSeq}&limit=${limit}&order=asc`;
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  if (res.status === 404) return { messages: [], hasMore: false };
  if (!res.ok) throw new Error(`mirror ${url} answered ${res.status}`);
  const page = MirrorPage.parse(await res.json());
  return { messages: page.messages, hasMore: page.links.next !== null };
}

/** The SDK's spelling of a transaction id, e.g. `0.0.2@1700000000.000000123`. */
export function transactionIdOf(id: z.infer<typeof MirrorTransactionId>): string {
  const [s = '0', n = '0'] = id.transaction_valid_start.split('.');
  return `${id.account_id}@${s}.${n.padEnd(9, '0')}`;
}

/** A whole HCS message: one unchunked message or every chunk of a chunked one. */
export interface AssembledMessage {
  bytes: Uint8Array;
  /** Initial transaction id, or null for an unchunked message from another SDK. */
  transactionId: string | null;
  firstSequenceNumber: number;
  /** The last chunk: its seq, time and running hash identify the message (as the SDK does). */
  last: MirrorMessage;
  chunks: number;
}

/** The most chunks a message may have (4 MiB): far above any Wire `WIRE_MAX_BYTES` can take. */
export const MAX_CHUNKS = 4096;
/**
 * A chunked message still missing chunks this long (consensus time) after
 * its first one never completes: its transaction ids are long expired (120 s).
 */
const GROUP_TTL_S = 15 * 60;

/** The whole seconds of a mirror consensus timestamp (`seconds.nanos`). */
const secondsOf = (timestamp: string) => Number(timestamp.split('.')[0]);

/**
 * Whether a chunk can belong to its message. Anyone may write to a public
 * topic, and the network checks nothing in `chunk_info`, so a chunk counts
 * only if its number lies within its total, the total is one a message can
 * have, and it was paid for by the account that began the message (as the
 * SDK sends every chunk): a stranger cannot add a chunk to a message it did
 * not start, or make one that never completes take unbounded memory.
 */
function chunkFits(message: MirrorMessage): boolean {
  const info = message.chunk_info;
  if (!info) return true;
  if (info.number > info.total || info.total > MAX_CHUNKS) return false;
  const starter = info.initial_transaction_id.account_id;
  return starter === null || starter === message.payer_account_id;
}

/**
 * Reassembles chunked messages by `chunk_info.initial_transaction_id`. Chunks
 * of one message may interleave with other messages; a message completes when
 * its last missing chunk arrives. Chunks that cannot be part of their message
 * (`chunkFits`), or whose total differs from its first chunk's, are ignored,
 * and a message missing chunks `GROUP_TTL_S` after its first is dropped, so
 * what is pending stays bounded. The rules read only the messages, in topic
 * order, so every reader (the listener, a rebuild, `wirestream verify`)
 * assembles the same. State survives between pages (and can be rebuilt from
 * `pending()` after a restart).
 */
export class ChunkAssembler {
  readonly #parts = new Map<string, MirrorMessage[]>();
  /** The consensus second at which pending groups were last checked for age. */
  #sweptAt = 0;

  constructor(pending: MirrorMessage[] = []) {
    for (const m of pending) if (chunkFits(m)) this.#remember(m);
  }

  /** Feeds one mirror message; returns a message when it is now complete. */
  add(message: MirrorMessage): AssembledMessage | null {
    const info = message.chunk_info;
    if (!info || info.total === 1) {
      return {
        bytes: fromBase64(message.message),
        transactionId: info ? transactionIdOf(info.initial_transaction_id) : null,
        firstSequenceNumber: message.sequence_number,
        last: message,
        chunks: 1,
      };
    }
    this.#sweep(secondsOf(message.consensus_timestamp));
    if (!chunkFits(message)) return null;
    const key = this.#remember(message);
    const parts = this.#parts.get(key) ?? [];
    if (parts.length < info.total) return null;
    this.#parts.delete(key);
    const ordered = [...parts].sort(
      (a, b) => (a.chunk_info?.number ?? 0) - (b.chunk_info?.number ?? 0),
    );
    const pieces = ordered.map((p) => fromBase64(p.message));
    const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      bytes.set(p, at);
      at += p.length;
    }
    const bySeq = [...parts].sort((a, b) => a.sequence_number - b.sequence_number);
    return {
      bytes,
      transactionId: key,
      firstSequenceNumber: bySeq[0]?.sequence_number ?? message.sequence_number,
      last: bySeq.at(-1) ?? message,
      chunks: info.total,
    };
  }

  /** Chunks still waiting for the rest of their message. */
  pending(): MirrorMessage[] {
    return [...this.#parts.values()].flat();
  }

  /** Keeps a chunk in its group (one per number, the group's total): the group's key. */
  #remember(message: MirrorMessage): string {
    const info = message.chunk_info;
    const key = info
      ? transactionIdOf(info.initial_transaction_id)
      : String(message.sequence_number);
    const parts = this.#parts.get(key) ?? [];
    const total = parts[0]?.chunk_info?.total ?? info?.total;
    const fresh = !parts.some((p) => p.chunk_info?.number === info?.number);
    if (fresh && info?.total === total) parts.push(message);
    this.#parts.set(key, parts);
    return key;
  }

  /** Drops the groups begun more than `GROUP_TTL_S` before `now` (checked once a minute). */
  #sweep(now: number): void {
    if (now < this.#sweptAt + 60) return;
    this.#sweptAt = now;
    for (const [key, parts] of this.#parts) {
      const first = parts[0];
      if (first && secondsOf(first.consensus_timestamp) < now - GROUP_TTL_S)
        this.#parts.delete(key);
    }
  }
}

/**
 * Where the message whose initial transaction id is `txId` sits on the topic,
 * if all its chunks do: its last chunk's sequence number, time and running
 * hash (as a record would give). A group missing a chunk is not the message.
 */
export async function findOnMirror(mirrorUrl: string, topicId: string, txId: string) {
  let after = 0;
  const numbers = new Set<number>();
  let total: number | null = null;
  let last: MirrorMessage | null = null;
  for (;;) {
    const { messages, hasMore } = await readTopicMessages(mirrorUrl, topicId, after);
    for (const m of messages) {
      after = m.sequence_number;
      const info = m.chunk_info;
      if (!info || !chunkFits(m) || transactionIdOf(info.initial_transaction_id) !== txId) continue;
      total ??= info.total; // the group's first chunk says how many
      if (info.total !== total) continue;
      numbers.add(info.number);
      if (info.number === total) last = m;
      if (last && numbers.size === total) {
        return {
          sequenceNumber: last.sequence_number,
          consensusTimestamp: last.consensus_timestamp,
          runningHash: last.running_hash,
        };
      }
    }
    if (!hasMore || messages.length === 0) return null;
  }
}
