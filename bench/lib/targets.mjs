// What is measured: Wirestream itself and the side-by-side implementations,
// each a wrangler project bundled exactly as `wrangler deploy` would.
import path from 'node:path';
import { logSignerKey } from '../../tools/dev-tokens.mjs';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const OUT = path.join(ROOT, 'bench/.out');

/** Wrangler projects to build. `peer: true` ones need bench/peers/node_modules. */
export const PROJECTS = {
  wirestream: { config: 'wrangler.toml', label: 'Wirestream' },
  ceiling: { config: 'bench/ceiling/wrangler.toml', label: 'bare DO (ceiling)' },
  agents: { config: 'bench/peers/agents.wrangler.toml', label: 'Agents SDK 0.32.0', peer: true },
  partyserver: {
    config: 'bench/peers/partyserver.wrangler.toml',
    label: 'PartyServer 0.5.10',
    peer: true,
  },
};

const enc = encodeURIComponent;

/** Wirestream's own API: append over HTTP, follow over its WebSocket. */
const WIRESTREAM = {
  project: 'wirestream',
  label: 'Wirestream',
  appendPath: (stream) => `/v1/streams/${enc(`bench:${stream}`)}/wires`,
  wsPath: (stream) => `/v1/streams/${enc(`bench:${stream}`)}/ws?after_seq=0`,
  seqOf: (receipt) => receipt.stream_seq,
  ack: true,
};
// The same Worker with log mode for every topic (one signed checkpoint per
// 256 Wires or 500 ms instead of one HCS message per Wire).
const WIRESTREAM_LOG = {
  ...WIRESTREAM,
  label: 'Wirestream, log mode',
  bindings: { ANCHOR_MODE: 'log', LOG_SIGNER_KEY: logSignerKey('bench') },
};

/**
 * Systems under test: a project plus how to append to a stream and follow it.
 * `ack` marks clients that must acknowledge (Wirestream's flow control).
 */
export const SYSTEMS = {
  wirestream: WIRESTREAM,
  // The same server, with clients that acknowledge every frame instead of as
  // the server's `hello` asks (every 512 Wires or within 1 s): what eager
  // acks cost at fan-out.
  'wirestream-eager-ack': {
    ...WIRESTREAM,
    label: 'Wirestream, ack per frame',
    ackPolicy: { ackEvery: 1, ackDelayMs: 0 },
  },
  // The same Worker with its HCS side (TopicObject, TopicDirectory) in a
  // second workerd process, as on Cloudflare where each object has its own
  // thread (lib/runtime.mjs, startSplit).
  'wirestream-split': { ...WIRESTREAM, label: 'Wirestream, topics in a 2nd process', split: true },
  'wirestream-log': WIRESTREAM_LOG,
  // Log mode with the HCS side in a second process: the sequencer's own
  // latency once topic passes (checkpoints, the archive, D1) stop sharing its thread.
  'wirestream-log-split': {
    ...WIRESTREAM_LOG,
    label: 'Wirestream, log mode, topics in a 2nd process',
    split: true,
  },
  'ceiling-rpc': {
    project: 'ceiling',
    label: 'bare DO, RPC',
    appendPath: (stream) => `/rpc/${stream}`,
    seqOf: (r) => r.seq,
  },
  'ceiling-fetch': {
    project: 'ceiling',
    label: 'bare DO, stub.fetch',
    appendPath: (stream) => `/fetch/${stream}`,
    seqOf: (r) => r.seq,
  },
  'ceiling-broadcast': {
    project: 'ceiling',
    label: 'bare DO + broadcast (hand-written)',
    appendPath: (stream) => `/rpc-broadcast/${stream}`,
    wsPath: (stream) => `/ws/${stream}`,
    seqOf: (r) => r.seq,
  },
  agents: peer('agents', 'Agents SDK 0.32.0', '/agents/stream-agent'),
  partyserver: peer('partyserver', 'PartyServer 0.5.10', '/parties/stream-server'),
};

/** A peer framework's stream: one object per stream, appended to and followed at one URL. */
function peer(project, label, prefix) {
  const at = (stream) => `${prefix}/${stream}`;
  return { project, label, appendPath: at, wsPath: at, seqOf: (r) => r.seq };
}

let counter = 0;
const RUN = Date.now().toString(36);

/** A realistic ~250-byte Wire 1.1 for `stream` (unique wire_id each call). */
/**
 * Vars every measured Wirestream instance gets: the rate limit stays on (its
 * cost is measured) but out of reach — the scenarios measure the sequencer,
 * not one sender's quota — and the subscriber cap is raised so 1,000 sockets
 * may follow one stream (default 256).
 */
export const BENCH_BINDINGS = {
  RATE_PER_SECOND: '1000000',
  RATE_BURST: '1000000',
  WS_MAX_SUBSCRIBERS: '2000',
};

/** The load generator's view of appending to one stream of `system` (see lib/load.mjs). */
export function oneStream(system, origin, headers, stream) {
  return {
    origin,
    headers,
    seqOf: system.seqOf,
    pathOf: () => system.appendPath(stream),
    bodyOf: () => wireBody(stream),
  };
}

export function wireBody(stream, sender = 'agent:bench') {
  counter += 1;
  return JSON.stringify({
    wire: '1.1',
    wire_id: `b${RUN}-${counter}`,
    stream_id: `bench:${stream}`,
    type: 'agent.heartbeat',
    sender,
    ts: new Date().toISOString(),
    payload: { n: counter, note: 'benchmark heartbeat', load: 0.42 },
  });
}
