#!/usr/bin/env node
// Measures HCS anchoring on this machine against the Hedera stand-in: lag from
// an append's 201 to its `anchored` WebSocket frame (open loop below
// saturation) and anchoring throughput (closed loop), with the stand-in's
// consensus latency off and at a Hedera-like 3 s. Runs the real Worker under
// `wrangler dev` from a bundled snapshot (a watching wrangler dev on the shared
// tree restarts whenever anyone saves a file).
//
//   npm run measure:anchoring -- [--wires 600] [--rate 50] [--clients 16] [--topics 1]
import WebSocket from 'ws';
import { wholeNumberOptions } from './lib/command-line.mjs';
import { sleep, startLocalStack } from './lib/local-stack.mjs';

const {
  wires: WIRES,
  rate: RATE,
  clients: CLIENTS,
  topics: TOPICS,
  streams: STREAMS,
} = wholeNumberOptions(
  { wires: 600, rate: 50, clients: 16, topics: 1, streams: 8 },
  'usage: npm run measure:anchoring -- [--wires 600] [--rate 50] [--clients 16] [--topics 1] [--streams 8]',
);
const { base, port, admin, standin, stop } = await startLocalStack('wirestream-anchoring-');

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

try {
  const res = await fetch(`${base}/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'agent:bench', scopes: ['append', 'read'] }),
  });
  const token = (await res.json()).token;
  const auth = { Authorization: `Bearer ${token}` };

  /** One scenario: streams spread over `TOPICS` topics, watched over WebSocket. */
  async function scenario(name, { openLoop, receiptDelayMs }) {
    const run = Math.random().toString(36).slice(2, 8);
    let phase = 'w';
    await fetch(`${standin.url}/__standin/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(receiptDelayMs ? { receiptDelayMs } : {}),
    });
    const sent = new Map();
    const anchored = new Set();
    const lags = [];
    let lastAnchored = 0;
    const sockets = [];
    for (let s = 0; s < STREAMS; s++) {
      const ws = new WebSocket(
        `ws://127.0.0.1:${port}/v1/streams/project:b${run}s${s}/ws?after_seq=0`,
        { headers: auth },
      );
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data));
        if (frame.kind === 'wires')
          ws.send(JSON.stringify({ kind: 'ack', seq: frame.wires.at(-1).stream_seq }));
        // News of an anchor comes three ways: an `anchored` frame, the
        // `anchored` list riding in a `wires` frame, or a Wire that arrives
        // already anchored.
        const news =
          frame.kind === 'anchored'
            ? frame.wires
            : frame.kind === 'wires'
              ? [...frame.wires, ...(frame.anchored ?? [])]
              : [];
        const now = performance.now();
        for (const w of news) {
          if (w.anchor?.status !== 'anchored' || anchored.has(w.wire_id)) continue;
          anchored.add(w.wire_id);
          const at = sent.get(w.wire_id);
          if (at === undefined) continue;
          lags.push(now - at);
          lastAnchored = now;
        }
      });
      await new Promise((r, j) =>
        ws
          .once('open', r)
          .once('error', j)
          .once('unexpected-response', (_q, res) =>
            j(new Error(`WebSocket upgrade answered ${res.statusCode}`)),
          ),
      );
      sockets.push(ws);
    }
    let n = 0;
    async function append() {
      const k = n++;
      const s = k % STREAMS;
      const body = {
        wire: '1.1',
        wire_id: `wire_b${run}${phase}_${k}`,
        stream_id: `project:b${run}s${s}`,
        correlation_id: `project:b${run}t${s % TOPICS}`,
        type: 'review.concern',
        sender: 'agent:bench',
        ts: new Date().toISOString(),
        payload: { concern: `measurement ${k}` },
      };
      const started = performance.now();
      // A retry under the same wire_id is safe: the stream answers with the receipt.
      for (let attempt = 1; ; attempt++) {
        const r = await fetch(`${base}/v1/streams/${body.stream_id}/wires`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        await r.arrayBuffer();
        if (r.status === 201 || r.status === 200) break;
        if (r.status < 500 || attempt === 5) throw new Error(`append ${r.status}`);
      }
      sent.set(body.wire_id, started);
    }
    // Warm-up, not timed: one Wire per topic creates the topics.
    for (let t = 0; t < TOPICS; t++) {
      n = t;
      await append();
    }
    for (let i = 0; lags.length < TOPICS && i < 300; i++) await sleep(100);
    lags.length = 0;
    n = 0;
    phase = 'm';
    const t0 = performance.now();
    if (openLoop) {
      const all = [];
      for (let k = 0; k < WIRES; k++) {
        const wait = t0 + (k * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        all.push(append());
      }
      await Promise.all(all);
    } else {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (n < WIRES) await append();
        }),
      );
    }
    const appended = performance.now();
    for (let i = 0; lags.length < WIRES && i < 1200; i++) await sleep(100);
    for (const ws of sockets) ws.close();
    const secs = (lastAnchored - t0) / 1000;
    console.log(
      `${name}: ${WIRES} Wires on ${TOPICS} topic(s), appended in ${((appended - t0) / 1000).toFixed(1)} s, ` +
        `${lags.length} anchored in ${secs.toFixed(1)} s (${Math.round(lags.length / secs)}/s); append→anchored ` +
        `p50 ${pct(lags, 50).toFixed(0)} ms, p90 ${pct(lags, 90).toFixed(0)} ms, p99 ${pct(lags, 99).toFixed(0)} ms, max ${Math.max(...lags).toFixed(0)} ms`,
    );
  }

  await scenario(`open loop ${RATE}/s, instant consensus`, { openLoop: true, receiptDelayMs: 0 });
  await scenario(`closed loop ${CLIENTS} clients, instant consensus`, {
    openLoop: false,
    receiptDelayMs: 0,
  });
  await scenario(`open loop ${RATE}/s, 3 s consensus`, { openLoop: true, receiptDelayMs: 3000 });
  await scenario(`closed loop ${CLIENTS} clients, 3 s consensus`, {
    openLoop: false,
    receiptDelayMs: 3000,
  });
} finally {
  await stop();
}
