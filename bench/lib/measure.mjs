// One measured run of an append workload against one system, in a fresh
// Miniflare: warm up, closed loop (throughput, workerd CPU per append), then
// open loop (latency below saturation) — with optional WebSocket subscribers
// whose delivery latency is taken from the append's send time.
import { benchHeaders } from './auth.mjs';
import { closedLoop, openLoop } from './load.mjs';
import { cpuMicros } from './proc.mjs';
import { start } from './runtime.mjs';
import { summarize } from './stats.mjs';
import { subscribe } from './subscribers.mjs';
import { SYSTEMS, wireBody } from './targets.mjs';

function deliveryLatencies(sent, record, expected) {
  const latencies = [];
  let delivered = 0;
  for (const { seq, at } of sent) {
    if (record.counts[seq] >= expected) {
      delivered += 1;
      latencies.push(record.lastAt[seq] - at);
    }
  }
  return { latencies, delivered, total: sent.length };
}

/** Waits until workerd uses < 15% of a core over 0.5 s (at most 30 s); returns the wait in ms. */
async function settle(rt, { quiet = 0.15, windowMs = 500, maxMs = 30_000 } = {}) {
  const started = performance.now();
  while (performance.now() - started < maxMs) {
    const c0 = rt.cpu();
    await new Promise((r) => setTimeout(r, windowMs));
    if ((rt.cpu() - c0) / (windowMs * 1000) < quiet) break;
  }
  return performance.now() - started;
}

/**
 * @param {object} o
 * @param {string} o.system key of SYSTEMS
 * @param {object} o.builds name → build()
 * @param {number} o.streams streams the appends spread over (round robin)
 * @param {number} o.clients closed-loop clients (0 skips the closed loop)
 * @param {number} o.closedMs
 * @param {number} o.rate open-loop appends/s (0 skips the open loop)
 * @param {number} o.openMs
 * @param {number} o.warmMs
 * @param {number} [o.subscribers] WebSockets following stream 0
 * @param {number} [o.standinPid] the Hedera stand-in's process: its CPU in the open loop is reported too
 */
export async function measure(o) {
  const system = SYSTEMS[o.system];
  const bindings = { ...o.bindings, ...system.bindings };
  const rt = await start(o.builds[system.project], { bindings, split: system.split });
  const headers = await benchHeaders();
  const streamOf = (i) => `${o.id ?? 'x'}-s${i % o.streams}`;
  const common = {
    origin: rt.origin,
    headers,
    seqOf: system.seqOf,
    pathOf: (i) => system.appendPath(streamOf(i)),
    bodyOf: (i) => wireBody(streamOf(i)),
  };
  const result = { system: o.system, label: system.label };
  let subs = null;
  try {
    if (o.subscribers) {
      const connectStarted = performance.now();
      subs = await subscribe({
        origin: rt.origin,
        wsPath: system.wsPath(streamOf(0)),
        count: o.subscribers,
        ack: Boolean(system.ack),
        ackPolicy: system.ackPolicy ?? o.ackPolicy,
        headers,
      });
      result.subscribers = subs.connected;
      result.connectMs = performance.now() - connectStarted;
      if (subs.failed) result.subscriberFailures = subs.failed;
    }
    await closedLoop({ ...common, clients: Math.max(1, o.clients || 4), ms: o.warmMs });
    let appended = 0;
    if (o.clients) {
      const cpu0 = rt.cpu();
      const closed = await closedLoop({ ...common, clients: o.clients, ms: o.closedMs });
      const cpu1 = rt.cpu();
      result.throughput = closed.completed / closed.seconds;
      result.cpuPerAppendUs = (cpu1 - cpu0) / closed.completed;
      result.closedLatency = summarize(closed.latencies);
      result.closedSamples = closed.latencies;
      result.errors = closed.errors;
      if (closed.errors) result.lastError = closed.lastError;
      appended = closed.sent.length;
    }
    if (o.rate) {
      // Latency is measured in a steady state: after the warm-up (and any
      // closed loop), wait until workerd is quiet again, or the burst's
      // leftover work (for Wirestream, anchoring the Wires the burst
      // appended) would land in the open loop's latency.
      result.settleMs = await settle(rt);
      const cpu0 = rt.cpuSplit();
      const standin0 = o.standinPid ? cpuMicros(o.standinPid) : 0;
      const open = await openLoop({ ...common, rate: o.rate, ms: o.openMs });
      const cpu1 = rt.cpuSplit();
      const n = Math.max(1, open.sent.length);
      if (o.standinPid) result.openStandinPerAppendUs = (cpuMicros(o.standinPid) - standin0) / n;
      result.openCpuPerAppendUs = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / n;
      result.openSysPerAppendUs = (cpu1.system - cpu0.system) / n;
      result.openSamples = open.latencies;
      result.openLatency = summarize(open.latencies);
      result.openErrors = open.errors;
      result.openClientStallP99Ms = open.clientStallP99Ms;
      result.openClientStallMaxMs = open.clientStallMaxMs;
      if (open.errors) result.lastError = open.lastError;
      if (subs) {
        const stream0 = open.sent.filter((s) => s.stream % o.streams === 0);
        const upTo = Math.max(0, ...stream0.map((s) => s.seq));
        const record = await subs.wait(upTo, 15_000);
        const d = deliveryLatencies(stream0, record, subs.connected);
        result.delivery = summarize(d.latencies);
        result.deliverySamples = d.latencies;
        result.delivered = d.delivered / Math.max(1, d.total);
        result.closes = record.closes;
      }
      // CPU per append including the work the appends left behind (for
      // Wirestream: anchoring and projection), counted until workerd is quiet.
      await settle(rt, { windowMs: 250 });
      const cpu2 = rt.cpuSplit();
      result.openCpuWithTailPerAppendUs = (cpu2.user + cpu2.system - cpu0.user - cpu0.system) / n;
      appended += open.sent.length;
    }
    result.peakRssMiB = rt.peakRss();
    result.appended = appended;
  } finally {
    if (subs) await subs.stop();
    await rt.dispose();
  }
  return result;
}
