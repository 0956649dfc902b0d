// @ts-check
// Ingest and consensus for `createTopic` and `submitMessage`, in the order a
// consensus node applies its checks: node-level prechecks (answered in the
// TransactionResponse, nothing recorded), then handling at consensus (the
// outcome is the receipt status; the payer is charged either way).
import { createHash } from 'node:crypto';
import { proto } from '@hashgraph/proto';
import { big, entityParts, entityString, timestampNs, timestampString, txKey } from './ids.mjs';
import { NODE_ACCOUNT_ID, ZERO_RUNNING_HASH } from './ledger.mjs';
import { runningHashV3 } from './running-hash.mjs';
import { decodeKey, ed25519Key, encodeKey, keySatisfied } from './signatures.mjs';

const Code = proto.ResponseCodeEnum;
export const MAX_MESSAGE_BYTES = 1024;
export const FEES = { createTopic: 1_000_000_000, submitMessage: 10_000_000 };
const MAX_VALID_DURATION_S = 180n;
const MAX_MEMO_BYTES = 100;

/**
 * @typedef {{ ledger: import('./ledger.mjs').Ledger, faults: import('./faults.mjs').Faults, count: (topicId: string, kind: string) => void }} Ctx
 * @typedef {{ kind: 'precheck', code: number, lose: boolean, topicId?: string | null } | { kind: 'unavailable' }} Outcome
 */

/**
 * Decode a `Transaction` into body, signatures and the bytes Hedera hashes.
 * @param {Uint8Array} bytes
 */
export function openTransaction(bytes) {
  const tx = proto.Transaction.decode(bytes);
  const signed = tx.signedTransactionBytes?.length
    ? proto.SignedTransaction.decode(tx.signedTransactionBytes)
    : { bodyBytes: tx.bodyBytes, sigMap: tx.sigMap };
  const bodyBytes = signed.bodyBytes ?? new Uint8Array();
  const hashed = tx.signedTransactionBytes?.length ? tx.signedTransactionBytes : bytes;
  return {
    body: proto.TransactionBody.decode(bodyBytes),
    bodyBytes,
    pairs: signed.sigMap?.sigPair ?? [],
    hash: createHash('sha384').update(hashed).digest(),
  };
}

/**
 * The checks shared with query payments: payer exists, signed, id valid.
 * @param {Ctx} ctx @param {ReturnType<typeof openTransaction>} t
 */
export function precheckPayer(ctx, t) {
  const id = t.body.transactionID;
  const key = txKey(id);
  if (!key || !id) return Code.INVALID_TRANSACTION_ID;
  if (entityString(t.body.nodeAccountID) !== NODE_ACCOUNT_ID) return Code.INVALID_NODE_ACCOUNT;
  const payer = ctx.ledger.accounts.get(entityString(id.accountID) ?? '');
  if (!payer) return Code.PAYER_ACCOUNT_NOT_FOUND;
  const start = timestampNs(id.transactionValidStart);
  const duration = big(t.body.transactionValidDuration?.seconds);
  if (duration < 1n || duration > MAX_VALID_DURATION_S) return Code.INVALID_TRANSACTION_DURATION;
  const now = BigInt(Date.now()) * 1_000_000n;
  if (start > now + 10_000_000_000n) return Code.INVALID_TRANSACTION_START;
  if (start + duration * 1_000_000_000n < now) return Code.TRANSACTION_EXPIRED;
  if (!keySatisfied(ed25519Key(payer.publicKeyHex), t.pairs, t.bodyBytes)) {
    return Code.INVALID_SIGNATURE;
  }
  return Code.OK;
}

/**
 * @param {Ctx} ctx
 * @param {'createTopic' | 'submitMessage'} method
 * @param {Uint8Array} bytes
 * @returns {Outcome}
 */
export function ingest(ctx, method, bytes) {
  /** @type {ReturnType<typeof openTransaction>} */
  let t;
  try {
    t = openTransaction(bytes);
  } catch {
    return { kind: 'precheck', code: Code.INVALID_TRANSACTION, lose: false };
  }
  const submit = t.body.consensusSubmitMessage;
  const topicId = submit ? entityString(submit.topicID) : null;
  if (topicId) ctx.count(topicId, 'submit');
  if (ctx.faults.unavailable(topicId)) return { kind: 'unavailable' };
  if ((submit?.chunkInfo?.number ?? 1) > 1 && ctx.faults.laterChunksUnavailable(topicId)) {
    return { kind: 'unavailable' };
  }
  const pre = (/** @type {number} */ code) => ({
    kind: /** @type {const} */ ('precheck'),
    code,
    lose: false,
  });
  if (ctx.faults.take(topicId, 'busy')) return pre(Code.BUSY);
  // A submit the node refuses for good (the payer ran out of funds): the SDK does not retry it.
  if (ctx.faults.take(topicId, 'payerBroke')) return pre(Code.INSUFFICIENT_PAYER_BALANCE);

  const wanted = method === 'createTopic' ? t.body.consensusCreateTopic : submit;
  if (!wanted) return pre(Code.INVALID_TRANSACTION_BODY);
  const payerCode = precheckPayer(ctx, t);
  if (payerCode !== Code.OK) return pre(payerCode);
  if (
    timestampNs(t.body.transactionID?.transactionValidStart) < ctx.faults.expiredBeforeNs(topicId)
  ) {
    return pre(Code.TRANSACTION_EXPIRED);
  }
  const key = /** @type {string} */ (txKey(t.body.transactionID));
  if (ctx.ledger.txs.has(key)) return pre(Code.DUPLICATE_TRANSACTION);
  if (big(t.body.transactionFee) < BigInt(FEES[method])) return pre(Code.INSUFFICIENT_TX_FEE);
  if (Buffer.byteLength(t.body.memo ?? '') > MAX_MEMO_BYTES) return pre(Code.MEMO_TOO_LONG);
  if (submit) {
    if (!topicId) return pre(Code.INVALID_TOPIC_ID);
    if (!submit.message?.length) return pre(Code.INVALID_TOPIC_MESSAGE);
  }

  const consensusNs = ctx.ledger.nextConsensusNs();
  const visibleAt = ctx.ledger.visibleAtFor(
    topicId ?? '*create',
    Date.now() + ctx.faults.delay(topicId, 'receiptDelayMs'),
  );
  const id = /** @type {proto.ITransactionID} */ (t.body.transactionID);
  /** @type {import('./ledger.mjs').TxResult} */
  const result = {
    txId: key,
    status: Code.SUCCESS,
    consensusNs: String(consensusNs),
    visibleAt,
    payer: /** @type {string} */ (entityString(id.accountID)),
    txHash: t.hash.toString('base64'),
    memo: t.body.memo ?? '',
    fee: FEES[method],
    validStartNs: String(timestampNs(id.transactionValidStart)),
    nonce: id.nonce ?? 0,
    scheduled: id.scheduled === true,
  };
  if (submit) handleSubmit(ctx, t, submit, result);
  else
    handleCreateTopic(
      ctx,
      t,
      /** @type {proto.IConsensusCreateTopicTransactionBody} */ (wanted),
      result,
    );
  ctx.ledger.addTx(result);
  return {
    kind: 'precheck',
    code: Code.OK,
    lose: ctx.faults.take(topicId, 'loseReceipts'),
    topicId,
  };
}

/**
 * @param {Ctx} ctx @param {ReturnType<typeof openTransaction>} t
 * @param {proto.IConsensusCreateTopicTransactionBody} op
 * @param {import('./ledger.mjs').TxResult} result
 */
function handleCreateTopic(ctx, t, op, result) {
  const signedBy = (/** @type {proto.IKey} */ k) => keySatisfied(k, t.pairs, t.bodyBytes);
  const autoRenew = op.autoRenewAccount ? entityString(op.autoRenewAccount) : null;
  const autoRenewAccount = autoRenew ? ctx.ledger.accounts.get(autoRenew) : null;
  if (autoRenew && !autoRenewAccount) result.status = Code.INVALID_AUTORENEW_ACCOUNT;
  else if (op.adminKey && !signedBy(op.adminKey)) result.status = Code.INVALID_SIGNATURE;
  else if (autoRenewAccount && !signedBy(ed25519Key(autoRenewAccount.publicKeyHex))) {
    result.status = Code.INVALID_SIGNATURE;
  } else if (Buffer.byteLength(op.memo ?? '') > MAX_MEMO_BYTES) result.status = Code.MEMO_TOO_LONG;
  if (result.status !== Code.SUCCESS) return;
  const topicId = ctx.ledger.allocateEntityId();
  ctx.ledger.addTopic({
    topicId,
    memo: op.memo ?? '',
    adminKey: op.adminKey ? encodeKey(op.adminKey) : null,
    submitKey: op.submitKey ? encodeKey(op.submitKey) : null,
    autoRenewAccount: autoRenew,
    autoRenewPeriod: op.autoRenewPeriod ? Number(big(op.autoRenewPeriod.seconds)) : null,
    createdNs: result.consensusNs,
    sequenceNumber: 0,
    runningHash: ZERO_RUNNING_HASH,
  });
  result.topicId = topicId;
}

/**
 * @param {Ctx} ctx @param {ReturnType<typeof openTransaction>} t
 * @param {proto.IConsensusSubmitMessageTransactionBody} op
 * @param {import('./ledger.mjs').TxResult} result
 */
function handleSubmit(ctx, t, op, result) {
  const topicId = /** @type {string} */ (entityString(op.topicID));
  const topic = ctx.ledger.topics.get(topicId);
  const message = op.message ?? new Uint8Array();
  const chunk = op.chunkInfo;
  const initialKey = chunk ? txKey(chunk.initialTransactionID) : null;
  const number = chunk?.number ?? 0;
  const total = chunk?.total ?? 0;
  if (!topic) result.status = Code.INVALID_TOPIC_ID;
  else if (topic.submitKey && !keySatisfied(decodeKey(topic.submitKey), t.pairs, t.bodyBytes)) {
    result.status = Code.INVALID_SIGNATURE;
  } else if (message.length > MAX_MESSAGE_BYTES) result.status = Code.MESSAGE_SIZE_TOO_LARGE;
  else if (chunk && (number < 1 || number > total)) result.status = Code.INVALID_CHUNK_NUMBER;
  else if (
    chunk &&
    (!initialKey ||
      entityString(chunk.initialTransactionID?.accountID) !== result.payer ||
      (number === 1 && initialKey !== result.txId))
  ) {
    result.status = Code.INVALID_CHUNK_TRANSACTION_ID;
  }
  if (!topic || result.status !== Code.SUCCESS) return;

  const sequenceNumber = topic.sequenceNumber + 1;
  const consensusNs = BigInt(result.consensusNs);
  const runningHash = runningHashV3({
    previous: Buffer.from(topic.runningHash, 'base64'),
    payer: entityParts(result.payer),
    topic: entityParts(topicId),
    consensusSeconds: consensusNs / 1_000_000_000n,
    consensusNanos: Number(consensusNs % 1_000_000_000n),
    sequenceNumber: BigInt(sequenceNumber),
    message,
  }).toString('base64');
  const initial = chunk?.initialTransactionID;
  ctx.ledger.addMessage({
    topicId,
    sequenceNumber,
    consensusNs: result.consensusNs,
    message: Buffer.from(message).toString('base64'),
    runningHash,
    payer: result.payer,
    chunkInfo:
      chunk && initial
        ? {
            initial_transaction_id: {
              account_id: /** @type {string} */ (entityString(initial.accountID)),
              nonce: initial.nonce ?? 0,
              scheduled: initial.scheduled === true,
              transaction_valid_start: timestampString(timestampNs(initial.transactionValidStart)),
            },
            number,
            total,
          }
        : null,
    visibleAt: result.visibleAt,
  });
  Object.assign(result, { topicId, sequenceNumber, runningHash });
}
