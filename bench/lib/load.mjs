// Load generators on 127.0.0.1 with keep-alive connections, bounded in time.
// Closed loop (N clients, each sends when its last answer came) measures
// throughput; open loop (a fixed arrival rate, latency counted from the
// intended send time) measures latency below saturation without coordinated
// omission.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { now } from './stats.mjs';

/** POSTs `body` and resolves with `{status, json, ms}`. */
export function post(agent, origin, path, body, headers = {}) {
  const started = now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        path,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // Not JSON: the status tells.
          }
          resolve({ status: res.statusCode, json, text, ms: now() - started, at: started });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function agentFor(sockets) {
  return new http.Agent({ keepAlive: true, maxSockets: sockets });
}

/**
 * `clients` loops, each appending to `streamOf(i)` until `ms` elapse.
 * Returns latencies, completed count, errors, elapsed seconds, and the
 * `{seq, at}` of every accepted append (for delivery latency).
 */
export async function closedLoop({ origin, clients, ms, pathOf, bodyOf, headers, seqOf }) {
  const agent = agentFor(clients);
  const latencies = [];
  const sent = [];
  let errors = 0;
  let lastError = '';
  const started = now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      while (now() < deadline) {
        try {
          const res = await post(agent, origin, pathOf(i), bodyOf(i), headers);
          if (res.status === 201) {
            latencies.push(res.ms);
            sent.push({ stream: i, seq: seqOf(res.json), at: res.at });
          } else {
            errors += 1;
            lastError = `${res.status} ${res.text.slice(0, 200)}`;
          }
        } catch (error) {
          errors += 1;
          lastError = String(error);
        }
      }
    }),
  );
  const seconds = (now() - started) / 1000;
  agent.destroy();
  return { latencies, sent, errors, lastError, seconds, completed: latencies.length };
}

/** Appends at `rate` per second for `ms`, latency measured from the schedule. */
export async function openLoop({ origin, rate, ms, pathOf, bodyOf, headers, seqOf }) {
  const agent = agentFor(256);
  // The load generator's own stalls (GC, timers late) delay sends and
  // answers alike and land in every system's latency: measured, not guessed.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const latencies = [];
  const sent = [];
  const pending = [];
  let errors = 0;
  let resets = 0;
  let lastError = '';
  const started = now();
  const total = Math.floor((rate * ms) / 1000);
  const interval = 1000 / rate;
  for (let n = 0; n < total; n++) {
    const due = started + n * interval;
    const wait = due - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      post(agent, origin, pathOf(n), bodyOf(n), headers).then(
        (res) => {
          if (res.status === 201) {
            latencies.push(now() - due);
            sent.push({ stream: n, seq: seqOf(res.json), at: due });
          } else {
            errors += 1;
            lastError = `${res.status} ${res.text.slice(0, 200)}`;
          }
        },
        (error) => {
          errors += 1;
          // A kept-alive socket the server closed as the request went out:
          // the client's race, counted apart from refusals (see `resets`).
          if (error?.code === 'ECONNRESET') resets += 1;
          lastError = String(error);
        },
      ),
    );
  }
  await Promise.all(pending);
  stalls.disable();
  agent.destroy();
  return {
    latencies,
    sent,
    errors,
    resets,
    lastError,
    seconds: (now() - started) / 1000,
    rate,
    // The histogram holds whole timer intervals: less the 1 ms it was asked for.
    clientStallP99Ms: Math.max(0, stalls.percentile(99) / 1e6 - 1),
    clientStallMaxMs: Math.max(0, stalls.max / 1e6 - 1),
  };
}
