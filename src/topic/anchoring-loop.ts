import { type Anchor, AnchorError, type ReceiptResult } from '../anchor/anchor';
import { toBase64 } from '../protocol/base64';
import { confirmOnMirror, type MirrorDeps, type QueueRow } from './mirror-confirm';
import { txIdsOf } from './topic-log';

/**
 * One pass of the TopicObject's anchoring, pipelined so consensus latency
 * (3-5 s on Hedera) does not cap throughput: Wires are submitted without
 * waiting for the earlier ones to reach consensus. In order:
 *
 *  - fresh Wires get transaction ids, stored *before* anything is sent, and
 *    are submitted in arrival order;
 *  - then every sent Wire is looked for on the mirror node, all of them in
 *    one read of the topic after the last message already read: those shown
 *    are recorded with sequence number, running hash and consensus time. One
 *    request per pass instead of a paid record query per Wire
 *    (`mirror-confirm.ts`);
 *  - Wires the mirror has not shown after `MIRROR_PATIENCE_MS` (or all of
 *    them while the mirror fails) are looked up by receipt (no waiting);
 *    those through consensus are recorded from their record.
 *
 * A Wire whose submission left no receipt is sent again under the same ids
 * once it had time to reach consensus, so the network's duplicate check
 * absorbs a resend of something it already accepted: no Wire lands twice,
 * none is skipped. New ids are chosen only when the old ones expired without
 * reaching consensus (checked against the mirror node, which outlives receipts).
 */
const BATCH = 200;
/** How long a sent Wire may take to reach consensus before it is resent (same ids). */
const CONSENSUS_PATIENCE_MS = 15_000;
/** Wires looked up at once (workerd runs six outgoing connections at a time). */
const WINDOW = 6;

export interface PassResult {
  anchored: QueueRow[];
  /** Unanchored Wires remain: fresh ones (run again now) or in flight (poll soon). */
  fresh: boolean;
  inFlight: boolean;
  error: string | null;
}

export interface LoopDeps extends MirrorDeps {
  anchor: Anchor;
  /** Transaction ids for messages of these sizes, unique across every isolate (the TopicDirectory's). */
  transactionIds(messageBytes: number[]): Promise<string[][]>;
  /** Whether lookups have been finding Wires through consensus (see `stateOf`). */
  consensus: ConsensusSeen;
  /** Where the mirror node shows a message whose initial transaction id is `txId`, if it does. */
  onMirror(
    txId: string,
  ): Promise<{ sequenceNumber: number; consensusTimestamp: string; runningHash: string } | null>;
}

/**
 * Whether Wires have been through consensus by the time they are looked up:
 * a moving average over recent lookups. While nearly all of them are (the
 * stand-in; a network answering faster than the poll), a Wire's record
 * (receipt data plus consensus time) is asked for at once instead of after a
 * receipt: one request less per Wire. While they are not (Hedera takes 3-5 s),
 * Wires are polled by receipt, which is free while they wait.
 */
export class ConsensusSeen {
  #rate = 0;

  get recordFirst(): boolean {
    return this.#rate >= 0.75;
  }

  observe(done: boolean): void {
    this.#rate = this.#rate * 0.7 + (done ? 0.3 : 0);
  }
}

export async function anchorPass(deps: LoopDeps): Promise<PassResult> {
  const { log, topicId, sentAt } = deps;
  const rows = log.unanchored(BATCH);
  const anchored: QueueRow[] = [];
  let error: string | null = null;

  // Fresh Wires go out first, so the mirror read that follows looks for
  // every Wire sent so far: each message of ours it shows belongs to a Wire
  // it knows, which is what lets the next read start after it. But not while
  // an earlier Wire holds ids without a submit known to have left (it failed,
  // or this object restarted): that one goes again first, under its ids, or a
  // fresh Wire would reach HCS before it.
  const unsettled = rows.some((r) => r.tx_ids !== null && !sentAt.has(r.pos));
  const sendError = unsettled ? null : await sendFresh(deps, rows, anchored);
  const shown = await confirmOnMirror(deps, rows);
  for (const { row, fields } of shown.found) {
    log.recordAnchor(row.pos, fields, deps.now());
    sentAt.delete(row.pos);
    anchored.push(row);
  }
  const lookup = await lookUp(deps, shown.unseen);
  error = sendError ?? lookup.error;
  for (const { row, rec, chunks } of lookup.done) {
    log.recordAnchor(row.pos, fieldsOf(rec, topicId, chunks), deps.now());
    sentAt.delete(row.pos);
    anchored.push(row);
  }
  const resend = lookup.resend;

  // 4. Wires that left no receipt in time go again, under the same ids.
  for (const { row, from } of error === null ? resend : []) {
    error = await send(
      deps,
      row,
      new TextEncoder().encode(row.message),
      txIdsOf(row),
      from,
      anchored,
    );
    if (error !== null) break;
  }
  const left = log.unanchored(1).length > 0;
  return { anchored, fresh: rows.length === BATCH, inFlight: left, error };
}

/**
 * 1. Fresh Wires in arrival order: every id is stored first, in one
 * synchronous stretch (one SQLite commit for the batch, not one per Wire),
 * then the Wires are sent; stops at a failure.
 */
async function sendFresh(deps: LoopDeps, rows: QueueRow[], anchored: QueueRow[]) {
  const fresh = rows.filter((r) => r.tx_ids === null);
  const messages = fresh.map((row) => new TextEncoder().encode(row.message));
  const ids = fresh.length > 0 ? await deps.transactionIds(messages.map((m) => m.length)) : [];
  // Durable before the first submit leaves (output gate).
  fresh.forEach((row, i) => {
    deps.log.recordTransactionIds(row.pos, ids[i] ?? []);
    row.tx_ids = JSON.stringify(ids[i] ?? []);
  });
  for (const [i, row] of fresh.entries()) {
    const error = await send(deps, row, messages[i] as Uint8Array, ids[i] ?? [], 0, anchored);
    if (error !== null) {
      // Keep HCS order: nothing after a Wire that did not go out. Those never
      // left, so they drop their ids and stay fresh for the next pass.
      for (const later of fresh.slice(i + 1)) {
        deps.log.recordTransactionIds(later.pos, null);
        later.tx_ids = null;
      }
      return error;
    }
  }
  return null;
}

type Done = { row: QueueRow; rec: Extract<ReceiptResult, { status: 'success' }>; chunks: number };

/**
 * 3. Wires the mirror did not show in time. Consensus comes roughly in order: while the
 * oldest has no receipt (a free query) the rest are not looked up; then each
 * gets its record (receipt data plus consensus time). Wires with no receipt
 * after `CONSENSUS_PATIENCE_MS` are due to be sent again.
 */
async function lookUp(deps: LoopDeps, rows: QueueRow[]) {
  const { anchor, sentAt } = deps;
  const result = {
    done: [] as Done[],
    resend: [] as { row: QueueRow; from: number }[],
    error: null as string | null,
  };
  const sent = rows.filter((r) => r.tx_ids !== null);
  const patient = (row: QueueRow) =>
    deps.now() - (sentAt.get(row.pos) ?? 0) <= CONSENSUS_PATIENCE_MS;
  // In windows, in order: stop after a window with a Wire still waiting for
  // consensus (the later ones are almost surely waiting too). Receipts are
  // free; a (paid) record query goes only to Wires through consensus, or to
  // every Wire while lookups keep finding them through (`ConsensusSeen`).
  const looked: QueueRow[] = [];
  const states: Awaited<ReturnType<typeof stateOf>>[] = [];
  for (let i = 0; i < sent.length; i += WINDOW) {
    const window = sent.slice(i, i + WINDOW);
    const recordFirst = deps.consensus.recordFirst;
    const got = await Promise.all(window.map((r) => stateOf(anchor, txIdsOf(r), recordFirst)));
    for (const g of got) deps.consensus.observe(g.kind === 'done');
    looked.push(...window);
    states.push(...got);
    if (got.some((g, j) => g.kind === 'missing' && patient(window[j] as QueueRow))) break;
  }
  looked.forEach((row, i) => {
    const state = states[i];
    if (!state) return;
    if (state.kind === 'failed') {
      result.error = `${nameOf(row)}: transaction ${state.id} failed; it gets new ids`;
      deps.log.recordTransactionIds(row.pos, null);
    } else if (state.kind === 'done') {
      result.done.push({ row, rec: state.rec, chunks: txIdsOf(row).length });
    } else if (!patient(row)) {
      result.resend.push({ row, from: state.from });
    }
  });
  return result;
}

/**
 * Receipts of every chunk (free), then the record of the last one (receipt
 * data + consensus time). `likelyDone`: the last chunk's receipt is skipped,
 * its record says the same.
 */
async function stateOf(anchor: Anchor, ids: string[], likelyDone: boolean) {
  for (let i = 0; i < (likelyDone ? ids.length - 1 : ids.length); i++) {
    const r = await anchor.getReceipt(ids[i] ?? '');
    if (r.status === 'failed') return { kind: 'failed' as const, id: ids[i] ?? '' };
    if (r.status === 'unknown') return { kind: 'missing' as const, from: i };
  }
  const rec = await anchor.getRecord(ids.at(-1) ?? '');
  if (rec.status === 'success') return { kind: 'done' as const, rec };
  if (rec.status === 'failed') return { kind: 'failed' as const, id: ids.at(-1) ?? '' };
  return { kind: 'missing' as const, from: ids.length - 1 };
}

/** Submits chunks `from..`; returns an error message, or null once the node took them. */
async function send(
  deps: LoopDeps,
  row: QueueRow,
  message: Uint8Array,
  ids: string[],
  from: number,
  anchored: QueueRow[],
): Promise<string | null> {
  const { anchor, log, topicId } = deps;
  try {
    await anchor.submit({ topicId, message, transactionIds: ids, from });
    deps.sentAt.set(row.pos, deps.now());
    return null;
  } catch (e) {
    if (e instanceof AnchorError && e.kind === 'expired') {
      // The refused chunk can never reach consensus under its id, so the
      // message cannot be completed under these ids: unless the mirror shows
      // it whole after all, it goes again under new ones. Chunks that did get
      // through before (`from` > 0: an outage longer than the ids' valid
      // duration) stay on the topic as an incomplete group readers skip.
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

const nameOf = (row: QueueRow) =>
  row.wire_id === undefined ? `checkpoint ${row.pos}` : `wire ${row.wire_id}`;
