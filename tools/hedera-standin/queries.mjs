// @ts-check
// `getTransactionReceipts` (free) and `getTxRecordByTxID` (a cost query, then
// a paid one). Before consensus is known a receipt says UNKNOWN; a node keeps
// receipts and records only for a while (Hedera: 180 s), then RECEIPT_NOT_FOUND.
import { proto } from '@hashgraph/proto';
import { accountProto, timestampProto, topicProto, txKey } from './ids.mjs';
import { NODE_ACCOUNT_ID } from './ledger.mjs';
import { RUNNING_HASH_VERSION } from './running-hash.mjs';
import { openTransaction, precheckPayer } from './transactions.mjs';

const Code = proto.ResponseCodeEnum;
export const RECORD_QUERY_COST = 100_000;

/**
 * @typedef {import('./transactions.mjs').Ctx & { receiptTtlMs: number }} QueryCtx
 * @typedef {{ kind: 'answer', bytes: Uint8Array } | { kind: 'unavailable' }} QueryOutcome
 */

/** @param {import('./ledger.mjs').TxResult} tx @returns {proto.ITransactionReceipt} */
function receiptOf(tx) {
  if (Date.now() < tx.visibleAt) return { status: Code.UNKNOWN };
  /** @type {proto.ITransactionReceipt} */
  const receipt = { status: tx.status };
  if (tx.status !== Code.SUCCESS || !tx.topicId) return receipt;
  if (tx.sequenceNumber !== undefined && tx.runningHash) {
    // A submit's receipt carries the topic's new state, not the topic id.
    receipt.topicSequenceNumber = tx.sequenceNumber;
    receipt.topicRunningHash = Buffer.from(tx.runningHash, 'base64');
    receipt.topicRunningHashVersion = RUNNING_HASH_VERSION;
  } else {
    receipt.topicID = topicProto(tx.topicId);
  }
  return receipt;
}

/** @param {QueryCtx} ctx @param {proto.ITransactionID | null | undefined} id */
function findTx(ctx, id) {
  const tx = ctx.ledger.txs.get(txKey(id) ?? '');
  if (!tx) return null;
  const consensusMs = Number(BigInt(tx.consensusNs) / 1_000_000n);
  return Math.max(consensusMs, tx.visibleAt) + ctx.receiptTtlMs < Date.now() ? null : tx;
}

/**
 * @param {QueryCtx} ctx
 * @param {'getTransactionReceipts' | 'getTxRecordByTxID'} method
 * @param {Uint8Array} bytes
 * @returns {QueryOutcome}
 */
export function answerQuery(ctx, method, bytes) {
  const query = proto.Query.decode(bytes);
  if (method === 'getTransactionReceipts') {
    const q = query.transactionGetReceipt;
    const tx = findTx(ctx, q?.transactionID);
    if (tx?.topicId) ctx.count(tx.topicId, 'receipt');
    if (ctx.faults.unavailable(tx?.topicId)) return { kind: 'unavailable' };
    const header = {
      nodeTransactionPrecheckCode: tx ? Code.OK : Code.RECEIPT_NOT_FOUND,
      responseType: q?.header?.responseType ?? proto.ResponseType.ANSWER_ONLY,
      cost: 0,
    };
    const response = { transactionGetReceipt: { header, receipt: tx ? receiptOf(tx) : null } };
    return { kind: 'answer', bytes: proto.Response.encode(response).finish() };
  }

  const q = query.transactionGetRecord;
  const tx = findTx(ctx, q?.transactionID);
  const responseType = q?.header?.responseType ?? proto.ResponseType.ANSWER_ONLY;
  if (tx?.topicId) {
    ctx.count(tx.topicId, responseType === proto.ResponseType.COST_ANSWER ? 'cost' : 'record');
  }
  if (ctx.faults.unavailable(tx?.topicId)) return { kind: 'unavailable' };
  const answer = (
    /** @type {number} */ code,
    /** @type {proto.ITransactionRecord | null} */ record,
  ) => ({
    kind: /** @type {const} */ ('answer'),
    bytes: proto.Response.encode({
      transactionGetRecord: {
        header: { nodeTransactionPrecheckCode: code, responseType, cost: RECORD_QUERY_COST },
        transactionRecord: record,
      },
    }).finish(),
  });
  if (responseType === proto.ResponseType.COST_ANSWER) return answer(Code.OK, null);
  const payment = q?.header?.payment;
  if (!payment) return answer(Code.INSUFFICIENT_TX_FEE, null);
  let paymentCode;
  try {
    const t = openTransaction(proto.Transaction.encode(payment).finish());
    paymentCode = t.body.cryptoTransfer ? precheckPayer(ctx, t) : Code.INSUFFICIENT_TX_FEE;
  } catch {
    paymentCode = Code.INVALID_TRANSACTION;
  }
  if (paymentCode !== Code.OK) return answer(paymentCode, null);
  if (!tx) return answer(Code.RECORD_NOT_FOUND, null);
  const known = Date.now() >= tx.visibleAt;
  return answer(Code.OK, {
    receipt: receiptOf(tx),
    transactionHash: Buffer.from(tx.txHash, 'base64'),
    consensusTimestamp: known ? timestampProto(tx.consensusNs) : null,
    transactionID: {
      accountID: accountProto(tx.payer),
      transactionValidStart: timestampProto(tx.validStartNs),
      nonce: tx.nonce,
      scheduled: tx.scheduled,
    },
    memo: tx.memo,
    transactionFee: tx.fee,
    transferList: {
      accountAmounts: [
        { accountID: accountProto(tx.payer), amount: -tx.fee },
        { accountID: accountProto(NODE_ACCOUNT_ID), amount: tx.fee },
      ],
    },
  });
}
