import { type Anchor, AnchorError, type ReceiptResult } from '../anchor/anchor';
import { type MirrorMessage, transactionIdOf } from '../anchor/mirror';
import { emptyRunningHash, fromBase64, stepChain, toBase64 } from '../anchor/running-hash';
import type { TopicLog, TopicRow } from './topic-log';

/**
 * One pass of the TopicObject's anchoring, pipelined so consensus latency
 * (3-5 s on Hedera) does not cap throughput. Two halves run side by side:
 *
 *  - fresh Wires get transaction ids, stored *before* anything is sent, and
 *    are submitted in arrival order;
 *  - then every sent Wire is looked for on the mirror node, all of them in
 *    one read of the topic after the last message already read: those shown
 *    are recorded with sequence number, running hash and consensus time. One
 *    request per pass instead of a paid record query per Wire.
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
/**
 * How long a sent Wire may stay off the mirror before it is looked up by
 * receipt: Hedera's consensus (3-5 s) plus the mirror's usual lag.
 */
const MIRROR_PATIENCE_MS = 10_000;
/** Mirror pages (100 messages each) read in one pass at most. */
const MIRROR_PAGES = 5;

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
  /** Whether lookups have been finding Wires through consensus (see `stateOf`). */
  consensus: ConsensusSeen;
  /** One page of the topic's messages after `afterSeq`, ascending (the mirror node). */
  mirrorAfter(afterSeq: number): Promise<{ messages: MirrorMessage[]; hasMore: boolean }>;
  /**
   * Where the last mirror read ended, and that message's running hash (base64):
   * every message up to it was seen while the Wires on it were known to the
   * pass, and the chain up to it checked. Null: not read yet by this isolate;
   * the read starts after the highest sequence number recorded.
   */
  mirrorCursor: MirrorCursor;
  /** Where the mirror node shows a message whose initial transaction id is `txId`, if it does. */
  onMirror(
    txId: string,
  ): Promise<{ sequenceNumber: number; consensusTimestamp: string; runningHash: string } | null>;
  now(): number;
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

export interface MirrorCursor {
  seq: number | null;
  hash: string | null;
}

export async function anchorPass(deps: LoopDeps): Promise<PassResult> {
  const { log, topicId, sentAt } = deps;
  const rows = log.unanchored(BATCH);
  const anchored: TopicRow[] = [];
  let error: string | null = null;

  // Fresh Wires go out first, so the mirror read that follows looks for
  // every Wire sent so far: each message of ours it shows belongs to a Wire
  // it knows, which is what lets the next read start after it.
  const sendError = await sendFresh(deps, rows, anchored);
  const shown = await onMirrorNow(deps, rows);
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
      idsOf(row),
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
async function sendFresh(deps: LoopDeps, rows: TopicRow[], anchored: TopicRow[]) {
  const fresh = rows.filter((r) => r.tx_ids === null);
  const messages = fresh.map((row) => new TextEncoder().encode(row.message));
  const ids: string[][] = [];
  for (const message of messages) ids.push(await deps.anchor.transactionIds(message.length));
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

type Done = { row: TopicRow; rec: Extract<ReceiptResult, { status: 'success' }>; chunks: number };

/**
 * 2. Every sent Wire looked for in one read of the mirror, from where the
 * last read ended. Returns the Wires it shows with their anchor fields, and
 * the rest that are due a receipt lookup: those the mirror has not shown
 * for `MIRROR_PATIENCE_MS` (or whose sending this isolate did not see), or
 * every sent Wire when the mirror fails.
 */
async function onMirrorNow(deps: LoopDeps, rows: TopicRow[]) {
  const sent = rows.filter((r) => r.tx_ids !== null);
  const found: { row: TopicRow; fields: ReturnType<typeof fieldsOf> }[] = [];
  if (sent.length === 0) return { found, unseen: sent };
  const byFirstId = new Map<string, TopicRow>();
  for (const row of sent) byFirstId.set(idsOf(row)[0] ?? '', row);
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
        const row = byFirstId.get(id);
        if (!row) continue;
        byFirstId.delete(id);
        found.push({
          row,
          fields: {
            hcs_topic_id: deps.topicId,
            hcs_sequence_number: m.sequence_number,
            consensus_timestamp: m.consensus_timestamp,
            running_hash: m.running_hash,
            hcs_chunks: idsOf(row).length,
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
  const overdue = (row: TopicRow) => {
    const sentAt = deps.sentAt.get(row.pos);
    return sentAt === undefined || deps.now() - sentAt > MIRROR_PATIENCE_MS;
  };
  return { found, unseen: [...byFirstId.values()].filter(overdue) };
}

/**
 * 3. Wires the mirror did not show in time. Consensus comes roughly in order: while the
 * oldest has no receipt (a free query) the rest are not looked up; then each
 * gets its record (receipt data plus consensus time). Wires with no receipt
 * after `CONSENSUS_PATIENCE_MS` are due to be sent again.
 */
async function lookUp(deps: LoopDeps, rows: TopicRow[]) {
  const { anchor, sentAt } = deps;
  const result = {
    done: [] as Done[],
    resend: [] as { row: TopicRow; from: number }[],
    error: null as string | null,
  };
  const sent = rows.filter((r) => r.tx_ids !== null);
  const patient = (row: TopicRow) =>
    deps.now() - (sentAt.get(row.pos) ?? 0) <= CONSENSUS_PATIENCE_MS;
  // In windows, in order: stop after a window with a Wire still waiting for
  // consensus (the later ones are almost surely waiting too). Receipts are
  // free; a (paid) record query goes only to Wires through consensus, or to
  // every Wire while lookups keep finding them through (`ConsensusSeen`).
  const looked: TopicRow[] = [];
  const states: Awaited<ReturnType<typeof stateOf>>[] = [];
  for (let i = 0; i < sent.length; i += WINDOW) {
    const window = sent.slice(i, i + WINDOW);
    const recordFirst = deps.consensus.recordFirst;
    const got = await Promise.all(window.map((r) => stateOf(anchor, idsOf(r), recordFirst)));
    for (const g of got) deps.consensus.observe(g.kind === 'done');
    looked.push(...window);
    states.push(...got);
    if (got.some((g, j) => g.kind === 'missing' && patient(window[j] as TopicRow))) break;
  }
  looked.forEach((row, i) => {
    const state = states[i];
    if (!state) return;
    if (state.kind === 'failed') {
      result.error = `wire ${row.wire_id}: transaction ${state.id} failed; it gets new ids`;
      deps.log.recordTransactionIds(row.pos, null);
    } else if (state.kind === 'done') {
      result.done.push({ row, rec: state.rec, chunks: idsOf(row).length });
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
