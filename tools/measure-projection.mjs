#!/usr/bin/env node
// Measures the read models on this machine: append-to-visible-in-D1 lag
// under load (open loop at --rate Wires/s, then closed loop with --clients)
// and rebuild speed (Wires/s replayed from the stand-in mirror). Runs the real
// Worker under `wrangler dev` on a free loopback port with the Hedera stand-in.
//
//   node tools/measure-projection.mjs [--wires 2000] [--rate 200] [--clients 16]
import { wholeNumberOptions } from './lib/command-line.mjs';
import { sleep, startLocalStack } from './lib/local-stack.mjs';

const {
  wires: WIRES,
  rate: RATE,
  clients: CLIENTS,
  agents: AGENTS,
} = wholeNumberOptions(
  { wires: 2000, rate: 200, clients: 16, agents: 50 },
  'usage: node tools/measure-projection.mjs [--wires 2000] [--rate 200] [--clients 16] [--agents 50]',
);
const { base, admin, stop } = await startLocalStack('wirestream-measure-');

try {
  const adminHeaders = { Authorization: `Bearer ${admin}` };
  const tokens = [];
  for (let i = 0; i < AGENTS; i++) {
    const res = await fetch(`${base}/v1/tokens`, {
      method: 'POST',
      headers: { ...adminHeaders, 'Content-Type': 'application/json' },
      body: JSON.stringify({ sub: `agent:m${i}`, scopes: ['append', 'read'] }),
    });
    tokens.push((await res.json()).token);
  }

  let n = 0;
  let retries = 0;
  async function append() {
    const i = n++ % AGENTS;
    const kind = n % 4 === 0 ? 'agent.capacity.updated' : 'agent.heartbeat';
    const body = {
      wire: '1.1',
      wire_id: `wire_m${n}_${Math.random().toString(36).slice(2, 8)}`,
      stream_id: `agent:m${i}`,
      type: kind,
      sender: `agent:m${i}`,
      ts: new Date().toISOString(),
      payload: kind === 'agent.heartbeat' ? {} : { available_units: n % 5, max_units: 5 },
    };
    // A retry under the same wire_id is safe: the stream answers with the receipt.
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${base}/v1/streams/agent:m${i}/wires`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens[i]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).catch((error) => {
        if (attempt === 5) throw error;
        return null; // connection cut: retry under the same wire_id
      });
      if (res === null) {
        retries++;
        await sleep(200);
        continue;
      }
      const text = await res.text();
      if (res.status === 201 || res.status === 200) {
        const { received_at } = JSON.parse(text);
        return { id: body.wire_id, at: performance.now(), received_at };
      }
      if (res.status !== 503 || attempt === 5) throw new Error(`append ${res.status}: ${text}`);
      retries++;
    }
  }

  // Time from the 201 to the Wire being served by GET /v1/wires (D1). One
  // watcher pages through what was projected since the oldest Wire still
  // awaited, every 25 ms, so measuring adds a steady, small read load.
  const pending = new Map();
  let watching = true;
  const watcher = (async () => {
    while (watching || pending.size > 0) {
      if (pending.size > 0) {
        const since = [...pending.values()].reduce(
          (m, p) => (p.received_at < m ? p.received_at : m),
          '9999',
        );
        let cursor = null;
        do {
          const url = `${base}/v1/wires?since=${encodeURIComponent(since)}&limit=500${cursor ? `&cursor=${cursor}` : ''}`;
          const res = await fetch(url, { headers: adminHeaders });
          const page = await res.json();
          if (res.status !== 200) throw new Error(`GET /v1/wires: ${JSON.stringify(page)}`);
          const now = performance.now();
          for (const w of page.wires ?? []) {
            const p = pending.get(w.wire_id);
            if (p) {
              p.lags.push(now - p.at);
              pending.delete(w.wire_id);
            }
          }
          cursor = page.next_cursor;
        } while (cursor);
      }
      await sleep(25);
    }
  })();
  const track = ({ id, at, received_at }, lags) => pending.set(id, { at, received_at, lags });

  const pct = (xs, p) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
  };
  const summary = (name, lags, appended, ms) =>
    console.log(
      `${name}: ${appended} Wires in ${(ms / 1000).toFixed(1)} s (${Math.round(appended / (ms / 1000))}/s); ` +
        `${retries} retried (503 or connection cut); lag to D1 over ${lags.length} samples: p50 ${pct(lags, 50).toFixed(0)} ms, p90 ${pct(lags, 90).toFixed(0)} ms, p99 ${pct(lags, 99).toFixed(0)} ms, max ${Math.max(...lags).toFixed(0)} ms`,
    );

  // Open loop below saturation: one append every 1/RATE s, every 5th sampled.
  {
    const lags = [];
    const started = performance.now();
    const work = [];
    for (let k = 0; k < WIRES; k++) {
      const due = started + (k * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      work.push(append().then((r) => track(r, lags)));
    }
    await Promise.all(work);
    const elapsed = performance.now() - started;
    while (pending.size > 0) await sleep(50);
    summary(`open loop at ${RATE}/s`, lags, WIRES, elapsed);
  }

  // Closed loop: CLIENTS appending back to back (saturation).
  {
    const lags = [];
    const started = performance.now();
    let left = WIRES;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (left-- > 0) track(await append(), lags);
      }),
    );
    const elapsed = performance.now() - started;
    while (pending.size > 0) await sleep(50);
    watching = false;
    await watcher;
    summary(`closed loop, ${CLIENTS} clients`, lags, WIRES, elapsed);
  }

  // Wait until everything is anchored and projected, then rebuild twice.
  const total = 2 * WIRES;
  for (;;) {
    const topics = (await (await fetch(`${base}/v1/topics`, { headers: adminHeaders })).json())
      .topics;
    const anchored = topics.reduce((s, t) => s + t.anchored, 0);
    if (anchored >= total) break;
    await sleep(500);
  }
  await sleep(1000);
  for (const round of [1, 2]) {
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/admin/rebuild`, { method: 'POST', headers: adminHeaders });
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const done = lines.at(-1);
    const wall = (performance.now() - t0) / 1000;
    console.log(
      `rebuild ${round}: ${done.wires} Wires, ${done.streams} streams, ${done.topics} topic(s) in ${done.seconds.toFixed(2)} s = ${done.wires_per_second} Wires/s (client wall ${wall.toFixed(2)} s, ${lines.length} progress lines)`,
    );
  }
} finally {
  await stop();
}
