// @ts-check
// The project's own Hedera network on loopback: one HTTP port serves the
// consensus node (gRPC-web, as the SDK's WebClient calls it), the mirror node
// REST API, and dev/test controls under /__standin/.
import { createServer } from 'node:http';
import { proto } from '@hashgraph/proto';
import { Faults, parseFaultSpec } from './faults.mjs';
import {
  GRPC_UNAVAILABLE,
  GRPC_UNIMPLEMENTED,
  readDataFrame,
  sendGrpcError,
  sendHealthy,
  sendUnary,
} from './grpc-web.mjs';
import { Ledger, NODE_ACCOUNT_ID, OPERATOR_ID } from './ledger.mjs';
import { mirrorRoute } from './mirror.mjs';
import { answerQuery } from './queries.mjs';
import { ingest } from './transactions.mjs';

const RECEIPT_TTL_MS = 180_000;
const MAX_BODY_BYTES = 1 << 20;

/** @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body */
function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'access-control-allow-origin': '*',
  });
  res.end(text);
}

/** @param {import('node:http').IncomingMessage} req @returns {Promise<Buffer>} */
async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Start the stand-in. `port` 0 picks a free port; `dataFile` keeps the ledger
 * (JSON lines) across restarts, otherwise it lives in memory.
 * @param {{ port?: number, host?: string, dataFile?: string, receiptTtlMs?: number }} [options]
 */
export async function startStandin({
  port = 0,
  host = '127.0.0.1',
  dataFile,
  receiptTtlMs = RECEIPT_TTL_MS,
} = {}) {
  const ledger = new Ledger(dataFile);
  const faults = new Faults();
  /** @type {Set<string>} */
  const tampered = new Set();
  /** Requests per topic, for tests that check what anchoring costs: topic → kind → count. */
  const requests = new Map();
  const count = (/** @type {string} */ topicId, /** @type {string} */ kind) => {
    const byKind = requests.get(topicId) ?? {
      submit: 0,
      receipt: 0,
      cost: 0,
      record: 0,
      mirror: 0,
    };
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    requests.set(topicId, byKind);
  };
  const ctx = { ledger, faults, tampered, receiptTtlMs, count };
  let url = '';

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  async function control(req, res, /** @type {string} */ path) {
    if (req.method === 'GET' && path === '/__standin/info') {
      const address = url.replace(/^http:\/\//, '');
      return sendJson(res, 200, {
        operatorId: OPERATOR_ID,
        operatorKey: ledger.operator.privateKeyDerHex,
        operatorPublicKey: ledger.operator.publicKeyHex,
        nodeAccountId: NODE_ACCOUNT_ID,
        network: { [address]: NODE_ACCOUNT_ID },
        grpcUrl: url,
        mirrorUrl: url,
      });
    }
    if (req.method === 'GET' && path.startsWith('/__standin/requests/')) {
      const topicId = decodeURIComponent(path.slice('/__standin/requests/'.length));
      return sendJson(
        res,
        200,
        requests.get(topicId) ?? { submit: 0, receipt: 0, cost: 0, record: 0, mirror: 0 },
      );
    }
    if (req.method === 'GET' && path === '/__standin/faults')
      return sendJson(res, 200, faults.snapshot());
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'use POST' });
    if (path === '/__standin/reset-faults') {
      faults.clear();
      return sendJson(res, 200, faults.snapshot());
    }
    let body;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8') || '{}');
    } catch {
      return sendJson(res, 400, { error: 'body must be JSON' });
    }
    if (path === '/__standin/faults') {
      const parsed = parseFaultSpec(body);
      if (typeof parsed === 'string') return sendJson(res, 400, { error: parsed });
      faults.set(parsed.scope, parsed.spec);
      return sendJson(res, 200, faults.snapshot());
    }
    if (path === '/__standin/tamper') {
      const { topicId, sequenceNumber, restore } = body ?? {};
      const m = ledger.messagesOf(String(topicId))[Number(sequenceNumber) - 1];
      if (!m) return sendJson(res, 404, { error: `no message ${topicId}#${sequenceNumber}` });
      if (restore === true) tampered.delete(`${m.topicId}#${m.sequenceNumber}`);
      else tampered.add(`${m.topicId}#${m.sequenceNumber}`);
      return sendJson(res, 200, {
        topicId: m.topicId,
        sequenceNumber: m.sequenceNumber,
        tampered: restore !== true,
      });
    }
    return sendJson(res, 404, { error: `no such control ${path}` });
  }

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  async function grpc(req, res, /** @type {string} */ path) {
    if (path === '/') {
      if (faults.unavailable(null)) return sendJson(res, 503, { error: 'unavailable' });
      return sendHealthy(res);
    }
    const [, service, method] = path.split('/');
    const payload = readDataFrame(await readBody(req));
    if (!payload) return sendGrpcError(res, GRPC_UNIMPLEMENTED, 'expected one gRPC-web data frame');
    const transaction =
      service === 'proto.ConsensusService' &&
      (method === 'createTopic' || method === 'submitMessage');
    const query =
      service === 'proto.CryptoService' &&
      (method === 'getTransactionReceipts' || method === 'getTxRecordByTxID');
    if (!transaction && !query) {
      const unserved = `${service}/${method} is not served by the stand-in`;
      return sendGrpcError(res, GRPC_UNIMPLEMENTED, unserved);
    }
    const outcome = transaction ? ingest(ctx, method, payload) : answerQuery(ctx, method, payload);
    if (outcome.kind === 'unavailable')
      return sendGrpcError(res, GRPC_UNAVAILABLE, 'node unavailable');
    if (query) return sendUnary(res, outcome.bytes);
    if (outcome.lose) {
      // Accepted and on its way to consensus, but the client never hears back.
      res.socket?.destroy();
      return;
    }
    const response = { nodeTransactionPrecheckCode: outcome.code, cost: 0 };
    const late =
      outcome.code === proto.ResponseCodeEnum.OK
        ? faults.delay(outcome.topicId, 'answerDelayMs')
        : 0;
    // A slow node: the submit is in, the answer comes late (a client's
    // deadline should give up first and ask again under the same id).
    if (late > 0) await new Promise((r) => setTimeout(r, late).unref());
    if (res.destroyed) return;
    return sendUnary(res, proto.TransactionResponse.encode(response).finish());
  }

  const server = createServer((req, res) => {
    const parsed = new URL(req.url ?? '/', 'http://stand-in');
    const path = parsed.pathname;
    const handle = async () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': '*',
        });
        return res.end();
      }
      if (path.startsWith('/__standin/')) return control(req, res, path);
      if (req.method === 'GET') {
        const answer = mirrorRoute(ctx, parsed);
        if (answer) return sendJson(res, answer.status, answer.body);
        return sendJson(res, 404, { _status: { messages: [{ message: 'Not found' }] } });
      }
      if (req.method === 'POST') return grpc(req, res, path);
      return sendJson(res, 405, { error: 'method not allowed' });
    };
    handle().catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err?.message ?? err) });
      else res.end();
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  url = `http://${host}:${boundPort}`;
  return {
    port: boundPort,
    url,
    ledger,
    faults,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}
