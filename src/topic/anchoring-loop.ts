import { type Anchor, AnchorError, type ReceiptResult } from '../anchor/anchor';
import { toBase64 } from '../anchor/running-hash';
import type { TopicLog, TopicRow } from './topic-log';

/**
 * One pass of the TopicObject's anchoring, pipelined so consensus latency
 * (3-5 s on Hedera) does not cap throughput:
 *
 *  1. Wires already sent are looked up by receipt (no waiting); the ones that
 *     reached consensus are recorded with their sequence number, running hash
 *     and consensus time (from the record).
 *  2. Fresh Wires get transaction ids, stored *before* anything is sent, and
 *     are submitted in arrival order. A Wire whose earlier submission left no
 *     receipt is sent again under the same ids once it had time to reach
 *     consensus, so the network's duplicate check absorbs a resend of
 *     something it already accepted: no Wire lands twice, none is skipped.
 *     New ids are chosen only when the old ones expired without reaching
 *     consensus (checked against the mirror node too, which outlives receipts).
 */
const BATCH = 200;
/** How long a sent Wire may take to reach consensus before it is resent (same ids). */
const CONSENSUS_PATIENCE_MS = 15_000;

export interface PassResult {
  anchored: TopicRow[];
  /** Unanchored Wires remain: fresh ones (run again now) or in flight (poll soon). */
  fresh: boolean;
  inFlight: boolean;
  error: string | null;
}

export interface LoopDeps {
  anchor: Anchor;
  log: TopicLog;
  topicId: string;
  /** When this isolate last sent each Wire (by pos); lost on restart, which only means an early resend. */
  sentAt: Map<number, number>;
  /** Where the mirror node shows a message whose initial transaction id is `txId`, if it does. */
  onMirror(
    txId: string,
  ): Promise<{ sequenceNumber: number; consensusTimestamp: string; runningHash: string } | null>;
  now(): number;
}

export async function anchorPass(deps: LoopDeps): Promise<PassResult> {
  const { anchor, log, topicId, sentAt } = deps;
  const rows = log.unanchored(BATCH);
  const anchored: TopicRow[] = [];
  let error: string | null = null;

  // 1. Fresh Wires first, in arrival order: ids stored, then sent.
  const fresh = rows.filter((r) => r.tx_ids === null);
  for (const row of fresh) {
    const message = new TextEncoder().encode(row.message);
    const ids = await anchor.transactionIds(message.length);
    log.recordTransactionIds(row.pos, ids); // durable before the submit leaves (output gate)
    error = await send(deps, row, message, ids, 0, anchored);
    if (error !== null) break; // keep HCS order: nothing after a Wire that did not go out
  }
  const justSent = new Set(fresh.map((r) => r.pos));

  // 2. Receipts of what was sent before. Consensus comes roughly in order: if
  //    the oldest is not through yet, the rest are not either (one query).
  let sent = rows.filter((r) => r.tx_ids !== null && !justSent.has(r.pos));
  const oldest = sent[0];
  const patient = (row: TopicRow) =>
    deps.now() - (sentAt.get(row.pos) ?? 0) <= CONSENSUS_PATIENCE_MS;
  if (oldest && patient(oldest)) {
    const first = await chunkStates(anchor, idsOf(oldest));
    if (first.firstMissing !== null && first.failed === null) sent = [];
  }
  const states = await Promise.all(sent.map((r) => chunkStates(anchor, idsOf(r))));
  const done: { row: TopicRow; ids: string[] }[] = [];
  const resend: { row: TopicRow; from: number }[] = [];
  sent.forEach((row, i) => {
    const state = states[i] ?? { firstMissing: 0, failed: null };
    if (state.failed !== null) {
      error = `wire ${row.wire_id}: transaction ${state.failed} failed; it gets new ids`;
      log.recordTransactionIds(row.pos, null);
    } else if (state.firstMissing === null) {
      done.push({ row, ids: idsOf(row) });
    } else if (!patient(row)) {
      resend.push({ row, from: state.firstMissing });
    }
  });
  const records = await Promise.all(done.map(({ ids }) => anchor.getRecord(ids.at(-1) ?? '')));
  done.forEach(({ row, ids }, i) => {
    const rec = records[i];
    if (rec?.status === 'success') {
      log.recordAnchor(row.pos, fieldsOf(rec, topicId, ids.length), deps.now());
      sentAt.delete(row.pos);
      anchored.push(row);
    }
  });

  // 3. Wires that left no receipt in time go again, under the same ids.
  for (const { row, from } of error === null ? resend : []) {
    error = await send(
      deps,
      row,
      new TextEncoder().encode(row.message),
      idsOf(row),
      from,
      anchored,
    );
    if (error !== null) break;
  }
  const left = log.unanchored(1).length > 0;
  return { anchored, fresh: rows.length === BATCH, inFlight: left, error };
}

/** Submits chunks `from..`; returns an error message, or null once the node took them. */
async function send(
  deps: LoopDeps,
  row: TopicRow,
  message: Uint8Array,
  ids: string[],
  from: number,
  anchored: TopicRow[],
): Promise<string | null> {
  const { anchor, log, topicId } = deps;
  try {
    await anchor.submit({ topicId, message, transactionIds: ids, from });
    deps.sentAt.set(row.pos, deps.now());
    return null;
  } catch (e) {
    if (e instanceof AnchorError && e.kind === 'expired' && from === 0) {
      // Never reached consensus under these ids (no receipt): unless the
      // mirror shows it after all, it is safe to choose new ones.
      const seen = await deps.onMirror(ids[0] ?? '');
      if (seen) {
        log.recordAnchor(
          row.pos,
          {
            hcs_topic_id: topicId,
            hcs_sequence_number: seen.sequenceNumber,
            consensus_timestamp: seen.consensusTimestamp,
            running_hash: seen.runningHash,
            hcs_chunks: ids.length,
          },
          deps.now(),
        );
        anchored.push(row);
        return null;
      }
      log.recordTransactionIds(row.pos, null);
    }
    return e instanceof Error ? e.message : String(e);
  }
}

function idsOf(row: TopicRow): string[] {
  return JSON.parse(row.tx_ids ?? '[]') as string[];
}

function fieldsOf(
  rec: Extract<ReceiptResult, { status: 'success' }>,
  topicId: string,
  chunks: number,
) {
  return {
    hcs_topic_id: topicId,
    hcs_sequence_number: rec.sequenceNumber,
    consensus_timestamp: rec.consensusTimestamp ?? '',
    running_hash: toBase64(rec.runningHash),
    hcs_chunks: chunks,
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
