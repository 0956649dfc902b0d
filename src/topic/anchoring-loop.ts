import { type Anchor, AnchorError, type ReceiptResult } from '../anchor/anchor';
import { toBase64 } from '../anchor/running-hash';
import type { TopicLog, TopicRow } from './topic-log';

/**
 * One pass of the TopicObject's anchoring: submit unanchored Wires to HCS in
 * arrival order and record where they landed. The rule that keeps every Wire
 * on HCS exactly once: transaction ids are stored *before* a submission, and
 * a Wire that already has ids is first looked up by receipt; only chunks with
 * no successful receipt are sent again, under the same ids, so the network's
 * duplicate check absorbs any resend of something it already accepted. New
 * ids are chosen only when the old ones expired without reaching consensus
 * (checked against the mirror node too, which outlives receipts).
 */
const BATCH = 50;

export interface PassResult {
  anchored: TopicRow[];
  /** Something is left to do: run again after `delayMs`. */
  again: boolean;
  error: string | null;
}

export interface LoopDeps {
  anchor: Anchor;
  log: TopicLog;
  topicId: string;
  /** True when the mirror node shows a message whose initial transaction id is `txId`. */
  onMirror(
    txId: string,
  ): Promise<{ sequenceNumber: number; consensusTimestamp: string; runningHash: string } | null>;
  now(): number;
}

export async function anchorPass(deps: LoopDeps): Promise<PassResult> {
  const { anchor, log, topicId } = deps;
  const rows = log.unanchored(BATCH);
  const anchored: TopicRow[] = [];
  const submitted: { row: TopicRow; ids: string[] }[] = [];
  let error: string | null = null;

  for (const row of rows) {
    const message = new TextEncoder().encode(row.message);
    let ids: string[];
    let from = 0;
    if (row.tx_ids !== null) {
      ids = JSON.parse(row.tx_ids) as string[];
      // An earlier attempt may have reached the network: ask before resending.
      const state = await chunkStates(anchor, ids);
      if (state.failed !== null) {
        error = `transaction ${state.failed} failed; resubmitting with new ids`;
        log.recordTransactionIds(row.pos, null);
        break;
      }
      if (state.firstMissing === null) {
        submitted.push({ row, ids });
        continue;
      }
      from = state.firstMissing;
    } else {
      ids = await anchor.transactionIds(message.length);
      log.recordTransactionIds(row.pos, ids); // durable before the submit leaves (output gate)
    }
    try {
      await anchor.submit({ topicId, message, transactionIds: ids, from });
      submitted.push({ row, ids });
    } catch (e) {
      if (e instanceof AnchorError && e.kind === 'expired' && from === 0) {
        // Never reached consensus under these ids (no receipt, not on the
        // mirror): safe to choose new ones.
        const seen = await deps.onMirror(ids[0] ?? '');
        if (seen) {
          log.recordAnchor(
            row.pos,
            { ...anchorFields(seen), hcs_topic_id: topicId, hcs_chunks: ids.length },
            deps.now(),
          );
          anchored.push(row);
          continue;
        }
        log.recordTransactionIds(row.pos, null);
      }
      error = e instanceof Error ? e.message : String(e);
      break; // keep HCS order: nothing after a Wire that did not go out
    }
  }

  const records = await Promise.all(
    submitted.map(async ({ row, ids }) => ({ row, ids, rec: await consensusOf(anchor, ids) })),
  );
  for (const { row, ids, rec } of records) {
    if (rec.status !== 'success') {
      if (rec.status === 'failed') error = `wire ${row.wire_id}: ${rec.reason}`;
      continue;
    }
    log.recordAnchor(
      row.pos,
      {
        hcs_topic_id: topicId,
        hcs_sequence_number: rec.sequenceNumber,
        consensus_timestamp: rec.consensusTimestamp ?? '',
        running_hash: toBase64(rec.runningHash),
        hcs_chunks: ids.length,
      },
      deps.now(),
    );
    anchored.push(row);
  }
  const unfinished = anchored.length < rows.length;
  const more = rows.length === BATCH;
  return { anchored, again: unfinished || more, error };
}

function anchorFields(seen: {
  sequenceNumber: number;
  consensusTimestamp: string;
  runningHash: string;
}) {
  return {
    hcs_sequence_number: seen.sequenceNumber,
    consensus_timestamp: seen.consensusTimestamp,
    running_hash: seen.runningHash,
  };
}

/** Receipts of every chunk: the first one not (yet) successful, or a failure. */
async function chunkStates(
  anchor: Anchor,
  ids: string[],
): Promise<{ firstMissing: number | null; failed: string | null }> {
  for (let i = 0; i < ids.length; i++) {
    const r = await anchor.getReceipt(ids[i] ?? '');
    if (r.status === 'failed') return { firstMissing: i, failed: ids[i] ?? '' };
    if (r.status === 'unknown') return { firstMissing: i, failed: null };
  }
  return { firstMissing: null, failed: null };
}

/** The record of the last chunk (its seq, time and running hash stand for the message). */
async function consensusOf(anchor: Anchor, ids: string[]): Promise<ReceiptResult> {
  const last = await anchor.getRecord(ids.at(-1) ?? '');
  if (last.status !== 'success') return last;
  for (const id of ids.slice(0, -1)) {
    const r = await anchor.getReceipt(id);
    if (r.status !== 'success') return r;
  }
  return last;
}
