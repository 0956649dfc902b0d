// Append workloads run against several systems side by side. Each repetition
// measures every system in a fresh Miniflare (interleaved, so drift in the
// machine's load hits all of them alike): first closed loop for throughput,
// then open loop at one common rate — half the slowest system's throughput in
// that repetition, so every system is below saturation.
import { measure } from '../lib/measure.mjs';
import { median, summarize } from '../lib/stats.mjs';

/**
 * @returns {Promise<object>} per system: throughput (median of reps), CPU µs
 *   per append, pooled latency samples, delivery samples, peak RSS.
 */
export async function appendScenario(o, builds, log) {
  const runs = Object.fromEntries(o.systems.map((s) => [s, []]));
  // What the closed and the open loop of one system in one repetition share.
  const common = (system) => ({
    id: o.id,
    system,
    builds,
    streams: o.streams,
    warmMs: o.warmMs,
    subscribers: o.subscribers,
    bindings: o.bindings,
  });
  for (let rep = 0; rep < o.reps; rep++) {
    const closed = {};
    if (o.clients && o.oneInstance) {
      // Quick mode: closed then open loop in the same instance at a fixed rate.
      for (const system of o.systems) {
        const r = await measure({ ...o, system, builds, streams: o.streams, rate: o.rate });
        runs[system].push({ ...r, open: r, rate: o.rate });
        log(
          `  ${o.id} ${system}: ${Math.round(r.throughput)}/s closed, p99 ${r.openLatency.p99.toFixed(1)} ms at ${o.rate}/s`,
        );
      }
      continue;
    }
    if (o.clients) {
      for (const system of o.systems) {
        const r = await measure({ ...common(system), clients: o.clients, closedMs: o.closedMs });
        closed[system] = r;
        log(`  ${o.id} rep ${rep + 1} ${system}: ${Math.round(r.throughput)}/s closed loop`);
      }
    }
    const slowest = Math.min(...Object.values(closed).map((r) => r.throughput));
    const rate = o.rate ?? Math.max(5, Math.floor((slowest * (o.rateFactor ?? 0.5)) / 5) * 5);
    for (const system of o.systems) {
      const r = await measure({ ...common(system), clients: 0, rate, openMs: o.openMs });
      runs[system].push({ ...closed[system], open: r, rate });
      log(
        `  ${o.id} rep ${rep + 1} ${system}: open loop ${rate}/s p99 ${r.openLatency.p99.toFixed(1)} ms (load generator stalled p99 ${r.openClientStallP99Ms.toFixed(1)} / max ${r.openClientStallMaxMs.toFixed(1)} ms)`,
      );
    }
  }
  const out = {};
  for (const [system, list] of Object.entries(runs)) {
    const first = list[0];
    out[system] = {
      label: first.open.label,
      reps: list.length,
      rate: median(list.map((r) => r.rate)),
      throughput: o.clients ? median(list.map((r) => r.throughput)) : Number.NaN,
      throughputs: list.map((r) => r.throughput),
      cpuPerAppendUs: o.clients ? median(list.map((r) => r.cpuPerAppendUs)) : Number.NaN,
      openCpuPerAppendUs: median(list.map((r) => r.open.openCpuPerAppendUs)),
      openCpuWithTailPerAppendUs: median(list.map((r) => r.open.openCpuWithTailPerAppendUs)),
      closedSamples: list.flatMap((r) => r.closedSamples ?? []),
      openSamples: list.flatMap((r) => r.open.openSamples),
      deliverySamples: list.flatMap((r) => r.open.deliverySamples ?? []),
      // Per repetition, for the spread: one stall can decide a pooled p99.
      repDeliveryP99: list.map((r) => summarize(r.open.deliverySamples ?? []).p99),
      repOpenCpuPerAppendUs: list.map((r) => r.open.openCpuPerAppendUs),
      repOpenP99: list.map((r) => summarize(r.open.openSamples).p99),
      clientStallP99Ms: median(list.map((r) => r.open.openClientStallP99Ms)),
      delivered: median(list.map((r) => r.open.delivered ?? Number.NaN)),
      subscribers: first.open.subscribers,
      connectMs: median(list.map((r) => r.open.connectMs ?? Number.NaN)),
      errors: list.reduce((n, r) => n + (r.errors ?? 0) + r.open.openErrors, 0),
      lastError: list.map((r) => r.lastError ?? r.open.lastError).find(Boolean),
      closes: list.map((r) => r.open.closes).find((c) => c && Object.keys(c).length),
      peakRssMiB: Math.max(...list.map((r) => Math.max(r.peakRssMiB ?? 0, r.open.peakRssMiB))),
    };
  }
  return out;
}
