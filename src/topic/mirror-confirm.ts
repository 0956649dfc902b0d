import { type MirrorMessage, transactionIdOf } from '../anchor/mirror';
import { emptyRunningHash, stepChain } from '../anchor/running-hash';
import type { AnchorRecord } from '../protocol';
import { fromBase64, toBase64 } from '../protocol/base64';
import { txIdsOf } from './topic-log';

/**
 * How long a sent Wire may stay off the mirror before it is looked up by
 * receipt: Hedera's consensus (3-5 s) plus the mirror's usual lag.
 */
const MIRROR_PATIENCE_MS = 10_000;
/** Mirror pages (100 messages each) read in one pass at most. */
const MIRROR_PAGES = 5;

/**
 * Where the last mirror read ended, and that message's running hash (base64):
 * every message up to it was seen while the Wires on it were known to the
 * pass, and the chain up to it checked. Null: not read yet by this isolate;
 * the read starts after the highest sequence number recorded.
 */
export interface MirrorCursor {
  seq: number | null;
  hash: string | null;
}

/**
 * One message the anchoring loop sends, in order: a topic's Wire (envelope
 * mode, `wire_id` set) or a checkpoint of its log (log mode, `log-mode.ts`).
 */
export interface QueueRow {
  pos: number;
  tx_ids: string | null;
  message: string;
  wire_id?: string;
}

/** Where the loop's messages are kept: the topic's `wires` table, or its log's checkpoints. */
export interface AnchorQueue {
  unanchored(limit: number): QueueRow[];
  recordTransactionIds(pos: number, ids: string[] | null): void;
  recordAnchor(
    pos: number,
    a: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>,
    now: number,
  ): void;
  highestSequenceNumber(): number;
  runningHashAt(seq: number): string | null;
}

export interface MirrorDeps {
  log: AnchorQueue;
  topicId: string;
  /** When this isolate last sent each Wire (by pos); lost on restart, which only means an early resend. */
  sentAt: Map<number, number>;
  /** One page of the topic's messages after `afterSeq`, ascending (the mirror node). */
  mirrorAfter(afterSeq: number): Promise<{ messages: MirrorMessage[]; hasMore: boolean }>;
  mirrorCursor: MirrorCursor;
  now(): number;
}

/**
 * Step 2 of an anchoring pass (`anchoring-loop.ts`): every sent Wire looked
 * for in one read of the mirror, from where the last read ended. Returns the
 * Wires it shows with their anchor fields, and the rest that are due a
 * receipt lookup: those the mirror has not shown for `MIRROR_PATIENCE_MS`
 * (or whose sending this isolate did not see), or every sent Wire when the
 * mirror fails.
 */
export async function confirmOnMirror(deps: MirrorDeps, rows: QueueRow[]) {
  const sent = rows.filter((r) => r.tx_ids !== null);
  const found: {
    row: QueueRow;
    fields: Omit<AnchorRecord, 'wire_id' | 'stream_id' | 'stream_seq'>;
  }[] = [];
  if (sent.length === 0) return { found, unseen: sent };
  // Each row's ids parsed once: the first names the message, the count its chunks.
  const byFirstId = new Map<string, { row: QueueRow; chunks: number }>();
  for (const row of sent) {
    const ids = txIdsOf(row);
    byFirstId.set(ids[0] ?? '', { row, chunks: ids.length });
  }
  const cursor = deps.mirrorCursor;
  if (cursor.seq === null) {
    const seq = deps.log.highestSequenceNumber();
    cursor.seq = seq;
    cursor.hash = seq === 0 ? toBase64(emptyRunningHash()) : deps.log.runningHashAt(seq);
  }
  let after = cursor.seq;
  // The running-hash chain is checked message by message from the cursor's
  // hash: an anchor is taken from the mirror only if the chain supports it,
  // as the listener and `verify` check it. Without a known start (a message
  // not ours at the cursor after a restart) it starts at the served hash.
  let prev = cursor.hash === null ? null : fromBase64(cursor.hash);
  try {
    for (let page = 0; page < MIRROR_PAGES && byFirstId.size > 0; page++) {
      const { messages, hasMore } = await deps.mirrorAfter(after);
      for (const m of messages) {
        if (prev === null) {
          prev = fromBase64(m.running_hash);
        } else {
          const step = await stepChain(prev, after, m, deps.topicId);
          if (!step.ok && step.kind === 'running-hash-mismatch') {
            throw new Error(
              `mirror message ${m.sequence_number} does not follow the running-hash chain`,
            );
          }
          prev = step.next;
        }
        after = m.sequence_number;
        cursor.seq = after;
        cursor.hash = m.running_hash;
        // A Wire is on HCS once its last chunk is: that chunk's sequence
        // number, time and running hash identify it (as a record would).
        const info = m.chunk_info;
        if (!info || info.number !== info.total) continue;
        const id = transactionIdOf(info.initial_transaction_id);
        const mine = byFirstId.get(id);
        if (!mine) continue;
        byFirstId.delete(id);
        found.push({
          row: mine.row,
          fields: {
            hcs_topic_id: deps.topicId,
            hcs_sequence_number: m.sequence_number,
            consensus_timestamp: m.consensus_timestamp,
            running_hash: m.running_hash,
            hcs_chunks: mine.chunks,
          },
        });
      }
      if (!hasMore || messages.length === 0) break;
    }
  } catch (e) {
    console.warn(`topic ${deps.topicId}: mirror read failed, looking up receipts`, e);
    const seen = new Set(found.map((f) => f.row.pos));
    return { found, unseen: sent.filter((r) => !seen.has(r.pos)) };
  }
  // A Wire this isolate has not seen go out (its submit failed, or the
  // object restarted since) is looked up by receipt at once, as before.
  const overdue = (row: QueueRow) => {
    const sentAt = deps.sentAt.get(row.pos);
    return sentAt === undefined || deps.now() - sentAt > MIRROR_PATIENCE_MS;
  };
  return { found, unseen: [...byFirstId.values()].map((m) => m.row).filter(overdue) };
}
