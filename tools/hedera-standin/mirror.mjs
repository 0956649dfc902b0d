// @ts-check
// Mirror node REST for topics, field for field as the public mirror node
// answers (see shared/reference/mirror-node-topics.openapi.yml). A message is
// visible once its consensus is known plus any mirror lag; visibility is
// monotonic per topic, so readers always see a prefix of the topic.
import { parseTimestamp, timestampString } from './ids.mjs';
import { RUNNING_HASH_VERSION } from './running-hash.mjs';
import { decodeKey } from './signatures.mjs';

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 25;
const QUERY_KEYS = new Set(['encoding', 'limit', 'order', 'sequencenumber', 'timestamp']);

/**
 * @typedef {{ ledger: import('./ledger.mjs').Ledger, faults: import('./faults.mjs').Faults,
 *   tampered: Set<string>, count: (topicId: string, kind: string) => void }} MirrorCtx
 * @typedef {{ status: number, body: unknown }} MirrorAnswer
 * @typedef {{ op: string, value: bigint }} Filter
 */

/** @param {string} message @returns {MirrorAnswer} */
const invalid = (message) => ({ status: 400, body: { _status: { messages: [{ message }] } } });
/** @type {MirrorAnswer} */
const notFound = { status: 404, body: { _status: { messages: [{ message: 'Not found' }] } } };

/** @param {string} raw */
function normalizeEntityId(raw) {
  if (/^\d{1,10}$/.test(raw)) return `0.0.${raw}`;
  return /^\d{1,10}\.\d{1,10}\.\d{1,10}$/.test(raw) ? raw : null;
}

/** @param {string[]} raws @param {(v: string) => bigint | null} parse @param {string[]} ops */
function parseFilters(raws, parse, ops) {
  /** @type {Filter[]} */
  const filters = [];
  for (const raw of raws) {
    const m = /^(?:([a-z]+):)?(.*)$/.exec(raw);
    const op = m?.[1] ?? 'eq';
    const value = parse(m?.[2] ?? '');
    if (!ops.includes(op) || value === null) return null;
    filters.push({ op, value });
  }
  return filters;
}

/** @param {bigint} v @param {Filter} f */
function passes(v, f) {
  switch (f.op) {
    case 'eq':
      return v === f.value;
    case 'ne':
      return v !== f.value;
    case 'gt':
      return v > f.value;
    case 'gte':
      return v >= f.value;
    case 'lt':
      return v < f.value;
    default:
      return v <= f.value;
  }
}

/**
 * How many of the topic's messages are visible now (always a prefix).
 * @param {MirrorCtx} ctx @param {string} topicId
 */
function visibleCount(ctx, topicId) {
  const cutoff = Date.now() - ctx.faults.delay(topicId, 'mirrorLagMs');
  const all = ctx.ledger.messagesOf(topicId);
  let n = all.length;
  while (n > 0 && (all[n - 1]?.visibleAt ?? 0) > cutoff) n--;
  return n;
}

/** @param {MirrorCtx} ctx @param {string} topicId */
function visibleMessages(ctx, topicId) {
  return ctx.ledger.messagesOf(topicId).slice(0, visibleCount(ctx, topicId));
}

/** @param {MirrorCtx} ctx @param {import('./ledger.mjs').Message} m @param {string} encoding */
function messageJson(ctx, m, encoding) {
  const hash = Buffer.from(m.runningHash, 'base64');
  // Tampering changes only what this mirror serves, never the ledger itself.
  if (ctx.tampered.has(`${m.topicId}#${m.sequenceNumber}`)) hash[0] = (hash[0] ?? 0) ^ 0xff;
  return {
    chunk_info: m.chunkInfo,
    consensus_timestamp: timestampString(m.consensusNs),
    message: encoding === 'utf-8' ? Buffer.from(m.message, 'base64').toString('utf8') : m.message,
    payer_account_id: m.payer,
    running_hash: hash.toString('base64'),
    running_hash_version: RUNNING_HASH_VERSION,
    sequence_number: m.sequenceNumber,
    topic_id: m.topicId,
  };
}

/** @param {string | null} b64 */
function keyJson(b64) {
  if (!b64) return null;
  const key = decodeKey(b64);
  if (key.ed25519) return { _type: 'ED25519', key: Buffer.from(key.ed25519).toString('hex') };
  return { _type: 'ProtobufEncoded', key: Buffer.from(b64, 'base64').toString('hex') };
}

/** @param {import('./ledger.mjs').Topic} t */
function topicJson(t) {
  const created = timestampString(t.createdNs);
  return {
    admin_key: keyJson(t.adminKey),
    auto_renew_account: t.autoRenewAccount,
    auto_renew_period: t.autoRenewPeriod,
    created_timestamp: created,
    custom_fees: { created_timestamp: created, fixed_fees: [] },
    deleted: false,
    fee_exempt_key_list: [],
    fee_schedule_key: null,
    memo: t.memo,
    submit_key: keyJson(t.submitKey),
    timestamp: { from: created, to: null },
    topic_id: t.topicId,
  };
}

/**
 * @param {MirrorCtx} ctx
 * @param {string} topicId
 * @param {URL} url
 * @returns {MirrorAnswer}
 */
function listMessages(ctx, topicId, url) {
  const q = url.searchParams;
  for (const k of q.keys()) if (!QUERY_KEYS.has(k)) return invalid(`Unknown query parameter: ${k}`);
  const limitRaw = q.get('limit') ?? String(DEFAULT_LIMIT);
  const limit = /^\d+$/.test(limitRaw) ? Number(limitRaw) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) return invalid('Invalid parameter: limit');
  const order = q.get('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') return invalid('Invalid parameter: order');
  const encoding = (q.get('encoding') ?? 'base64').toLowerCase();
  if (encoding !== 'base64' && encoding !== 'utf-8') return invalid('Invalid parameter: encoding');
  const seqFilters = parseFilters(
    q.getAll('sequencenumber'),
    (v) => (/^\d{1,19}$/.test(v) ? BigInt(v) : null),
    ['eq', 'gt', 'gte', 'lt', 'lte'],
  );
  if (!seqFilters) return invalid('Invalid parameter: sequencenumber');
  const tsFilters = parseFilters(q.getAll('timestamp'), parseTimestamp, [
    'eq',
    'ne',
    'gt',
    'gte',
    'lt',
    'lte',
  ]);
  if (!tsFilters) return invalid('Invalid parameter: timestamp');

  // Message n sits at index n - 1: an ascending read after a sequence number
  // (how every follower pages) starts there instead of filtering the topic.
  const all = ctx.ledger.messagesOf(topicId);
  const visible = visibleCount(ctx, topicId);
  let start = 0;
  for (const f of seqFilters) {
    if (f.op === 'gt' || f.op === 'gte' || f.op === 'eq') {
      const first = Number(f.op === 'gt' ? f.value : f.value - 1n);
      start = Math.max(start, Math.min(first, visible));
    }
  }
  /** @param {import('./ledger.mjs').Message} m */
  const matches = (m) =>
    seqFilters.every((f) => passes(BigInt(m.sequenceNumber), f)) &&
    tsFilters.every((f) => passes(BigInt(m.consensusNs), f));
  /** @type {import('./ledger.mjs').Message[]} */
  let page = [];
  if (order === 'asc') {
    for (let i = start; i < visible && page.length < limit; i++) {
      const m = all[i];
      if (m && matches(m)) page.push(m);
    }
  } else {
    page = all.slice(start, visible).filter(matches).reverse().slice(0, limit);
  }
  const last = page.at(-1);
  let next = null;
  if (page.length === limit && last) {
    const params = new URLSearchParams();
    for (const [k, v] of q) {
      const paging = order === 'asc' ? /^(gt|gte):/ : /^(lt|lte):/;
      if (k === 'sequencenumber' && paging.test(v)) continue;
      params.append(k, v);
    }
    params.set('limit', String(limit));
    params.append('sequencenumber', `${order === 'asc' ? 'gt' : 'lt'}:${last.sequenceNumber}`);
    next = `/api/v1/topics/${topicId}/messages?${params.toString().replaceAll('%3A', ':')}`;
  }
  return {
    status: 200,
    body: { messages: page.map((m) => messageJson(ctx, m, encoding)), links: { next } },
  };
}

/**
 * Route a GET under /api/v1/topics; null when the path is not a mirror path.
 * @param {MirrorCtx} ctx
 * @param {URL} url
 * @returns {MirrorAnswer | null}
 */
export function mirrorRoute(ctx, url) {
  const parts = url.pathname.replace(/\/+$/, '').split('/').slice(1);
  if (parts[0] !== 'api' || parts[1] !== 'v1' || parts[2] !== 'topics') return null;
  if (parts[3] === 'messages' && parts.length === 5) {
    const ns = parseTimestamp(parts[4] ?? '');
    if (ns === null) return invalid('Invalid parameter: timestamp');
    for (const topicId of ctx.ledger.topics.keys()) {
      const m = visibleMessages(ctx, topicId).find((x) => BigInt(x.consensusNs) === ns);
      if (m) return { status: 200, body: messageJson(ctx, m, 'base64') };
    }
    return notFound;
  }
  const topicId = normalizeEntityId(parts[3] ?? '');
  if (!topicId) return invalid('Invalid parameter: topic.id');
  const topic = ctx.ledger.topics.get(topicId);
  if (parts.length === 4) return topic ? { status: 200, body: topicJson(topic) } : notFound;
  if (parts[4] !== 'messages' || parts.length > 6) return notFound;
  if (!topic) {
    const num = topicId.split('.')[2];
    return {
      status: 404,
      body: { _status: { messages: [{ message: `No such topic id - ${num}` }] } },
    };
  }
  if (ctx.faults.mirrorUnavailable(topicId)) {
    return { status: 503, body: { _status: { messages: [{ message: 'Service Unavailable' }] } } };
  }
  if (parts.length === 5) {
    ctx.count(topicId, 'mirror');
    return listMessages(ctx, topicId, url);
  }
  const seq = parts[5] ?? '';
  if (!/^\d{1,19}$/.test(seq)) return invalid('Invalid parameter: sequenceNumber');
  const m = visibleMessages(ctx, topicId)[Number(seq) - 1];
  return m ? { status: 200, body: messageJson(ctx, m, 'base64') } : notFound;
}
