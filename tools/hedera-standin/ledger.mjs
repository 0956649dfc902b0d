// @ts-check
// The stand-in network's state: accounts, topics with their messages, and the
// results of every transaction. Kept as an append-only JSON-lines file (one
// event per line) so a restart of `npm start` replays it; in memory otherwise.

import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RUNNING_HASH_BYTES } from './running-hash.mjs';

export const OPERATOR_ID = '0.0.2';
export const NODE_ACCOUNT_ID = '0.0.3';
const FIRST_ENTITY_NUM = 1001;

/**
 * @typedef {{ accountId: string, publicKeyHex: string, privateKeyDerHex?: string }} Account
 * @typedef {{
 *   topicId: string, memo: string, adminKey: string | null, submitKey: string | null,
 *   autoRenewAccount: string | null, autoRenewPeriod: number | null, createdNs: string,
 *   sequenceNumber: number, runningHash: string,
 * }} Topic  keys are base64 protobuf `Key` bytes, runningHash base64
 * @typedef {{ account_id: string, nonce: number, scheduled: boolean, transaction_valid_start: string }} MirrorTxId
 * @typedef {{ initial_transaction_id: MirrorTxId, number: number, total: number }} ChunkInfo
 * @typedef {{
 *   topicId: string, sequenceNumber: number, consensusNs: string, message: string,
 *   runningHash: string, payer: string, chunkInfo: ChunkInfo | null, visibleAt: number,
 * }} Message  message and runningHash base64; visibleAt = ms epoch when consensus is known
 * @typedef {{
 *   txId: string, status: number, consensusNs: string, visibleAt: number, payer: string,
 *   txHash: string, memo: string, fee: number, topicId?: string, sequenceNumber?: number,
 *   runningHash?: string, validStartNs: string, nonce: number, scheduled: boolean,
 * }} TxResult  txHash base64
 */

export class Ledger {
  /** @param {string | undefined} file */
  constructor(file) {
    this.file = file;
    this.dirReady = false;
    /** @type {Map<string, Account>} */
    this.accounts = new Map();
    /** @type {Map<string, Topic>} */
    this.topics = new Map();
    /** @type {Map<string, Message[]>} messages per topic, index = sequence number - 1 */
    this.messages = new Map();
    /** @type {Map<string, TxResult>} */
    this.txs = new Map();
    this.nextEntityNum = FIRST_ENTITY_NUM;
    this.lastConsensusNs = 0n;
    /** @type {Map<string, number>} per topic: visibility is monotonic so readers see a prefix */
    this.lastVisibleAt = new Map();
    if (file && existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      this.#replay(text);
      // End a torn last line so the next event starts a line of its own.
      if (text !== '' && !text.endsWith('\n')) appendFileSync(file, '\n');
    }
    if (!this.accounts.has(OPERATOR_ID)) this.#genesis();
  }

  /** @returns {Account & { privateKeyDerHex: string }} */
  get operator() {
    const op = this.accounts.get(OPERATOR_ID);
    if (!op?.privateKeyDerHex) throw new Error('ledger has no genesis operator');
    return /** @type {Account & { privateKeyDerHex: string }} */ (op);
  }

  #genesis() {
    for (const accountId of [OPERATOR_ID, NODE_ACCOUNT_ID]) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const spki = publicKey.export({ format: 'der', type: 'spki' });
      /** @type {Account} */
      const account = { accountId, publicKeyHex: spki.subarray(-32).toString('hex') };
      // Dev-only: the genesis operator's key is handed out by /__standin/info.
      if (accountId === OPERATOR_ID) {
        account.privateKeyDerHex = privateKey
          .export({ format: 'der', type: 'pkcs8' })
          .toString('hex');
      }
      this.#record({ t: 'account', account });
    }
  }

  /** Next consensus timestamp in ns: wall clock, strictly increasing. */
  nextConsensusNs() {
    const now = BigInt(Date.now()) * 1_000_000n;
    this.lastConsensusNs = now > this.lastConsensusNs ? now : this.lastConsensusNs + 1n;
    return this.lastConsensusNs;
  }

  /** @param {string} topicId @param {number} at */
  visibleAtFor(topicId, at) {
    const v = Math.max(at, this.lastVisibleAt.get(topicId) ?? 0);
    this.lastVisibleAt.set(topicId, v);
    return v;
  }

  allocateEntityId() {
    return `0.0.${this.nextEntityNum++}`;
  }

  /** @param {Topic} topic */
  addTopic(topic) {
    this.#record({ t: 'topic', topic });
  }

  /** @param {Message} message */
  addMessage(message) {
    this.#record({ t: 'msg', message });
  }

  /** @param {TxResult} tx */
  addTx(tx) {
    this.#record({ t: 'tx', tx });
  }

  /** @param {string} topicId */
  messagesOf(topicId) {
    return this.messages.get(topicId) ?? [];
  }

  /** Apply one event and, with a file, append it. @param {LedgerEvent} event */
  #record(event) {
    this.#apply(event);
    if (this.file) {
      if (!this.dirReady) mkdirSync(dirname(this.file), { recursive: true });
      this.dirReady = true;
      appendFileSync(this.file, `${JSON.stringify(event)}\n`);
    }
  }

  /** @param {string} text */
  #replay(text) {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        this.#apply(JSON.parse(line));
      } catch {
        // A torn last line (killed mid-write) is skipped; everything before it stands.
      }
    }
  }

  /** @typedef {{t:'account',account:Account}|{t:'topic',topic:Topic}|{t:'msg',message:Message}|{t:'tx',tx:TxResult}} LedgerEvent */
  /** @param {LedgerEvent} event */
  #apply(event) {
    switch (event.t) {
      case 'account':
        this.accounts.set(event.account.accountId, event.account);
        break;
      case 'topic': {
        this.topics.set(event.topic.topicId, event.topic);
        if (!this.messages.has(event.topic.topicId)) this.messages.set(event.topic.topicId, []);
        const num = Number(event.topic.topicId.split('.')[2]);
        if (num >= this.nextEntityNum) this.nextEntityNum = num + 1;
        this.#seen(event.topic.createdNs);
        break;
      }
      case 'msg': {
        const m = event.message;
        const topic = this.topics.get(m.topicId);
        if (!topic) throw new Error(`message for unknown topic ${m.topicId}`);
        this.messagesOf(m.topicId).push(m);
        this.messages.set(m.topicId, this.messagesOf(m.topicId));
        topic.sequenceNumber = m.sequenceNumber;
        topic.runningHash = m.runningHash;
        this.visibleAtFor(m.topicId, m.visibleAt);
        this.#seen(m.consensusNs);
        break;
      }
      case 'tx':
        this.txs.set(event.tx.txId, event.tx);
        this.#seen(event.tx.consensusNs);
        break;
    }
  }

  /** @param {string} ns */
  #seen(ns) {
    const v = BigInt(ns);
    if (v > this.lastConsensusNs) this.lastConsensusNs = v;
  }
}

export const ZERO_RUNNING_HASH = Buffer.alloc(RUNNING_HASH_BYTES).toString('base64');
