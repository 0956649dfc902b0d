#!/usr/bin/env node
// `node bench/profile.mjs [--system S] [--worktree | --src DIR] [--fanout N [--eager-ack]] [--rate R] [--seconds S] [--mode log] [--heap] [--alloc | --alloc-old] [--front]`: a V8 CPU
// profile of the Wirestream isolate (Worker and Durable Objects) under the
// one-stream append load, through workerd's inspector. Prints where the
// time goes by function and by source file — what to fix when a target is
// missed. Writes bench/.out/<system>.cpuprofile (open it in DevTools).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { logSignerKey } from '../tools/dev-tokens.mjs';
import { numberOption } from './lib/args.mjs';
import { benchHeaders } from './lib/auth.mjs';
import { build, snapshotHead } from './lib/build.mjs';
import { closedLoop, openLoop } from './lib/load.mjs';
import { start } from './lib/runtime.mjs';
import { startStandin } from './lib/standin.mjs';
import { subscribe } from './lib/subscribers.mjs';
import { consoleTable } from './lib/table.mjs';
import { BENCH_BINDINGS, OUT, oneStream, ROOT, SYSTEMS } from './lib/targets.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => numberOption(args, name, fallback);
const seconds = opt('--seconds', 5);
const fanout = opt('--fanout', 0);
const srcDir = args.includes('--src')
  ? path.resolve(args[args.indexOf('--src') + 1])
  : args.includes('--worktree')
    ? ROOT
    : snapshotHead().dir;
const systemName = args.includes('--system') ? args[args.indexOf('--system') + 1] : 'wirestream';
const system = SYSTEMS[systemName];

const standin = await startStandin(srcDir);
const bundle = await build(system.project, { srcDir, names: true });
const inspectorPort = 9300 + Math.floor(Math.random() * 500);
// `--mode log`: the topic checkpoints a Merkle log instead of one message per Wire.
const mode = args.includes('--mode') ? args[args.indexOf('--mode') + 1] : 'envelope';
const rt = await start(bundle, {
  bindings: {
    ...BENCH_BINDINGS,
    ...(standin ? { HEDERA_LOCAL_URL: standin.url } : {}),
    ...(mode === 'log' ? { ANCHOR_MODE: 'log', LOG_SIGNER_KEY: logSignerKey('bench') } : {}),
  },
  inspectorPort,
  split: system.split,
  inspectFront: args.includes('--front'),
});

const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
const target = targets.find((t) => t.title?.includes(`bench-${system.project}`)) ?? targets[0];
// Split: the inspector is the HCS side's (TopicObject, TopicDirectory): anchoring alone;
// with `--front`, the API side's (Worker, StreamObject): the sequencer without anchoring.
const ws = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((r) => ws.once('open', r));
let id = 0;
const pending = new Map();
ws.on('message', (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.id && pending.has(msg.id)) {
    pending.get(msg.id)(msg.result);
    pending.delete(msg.id);
  }
});
const cdp = (method, params = {}) =>
  new Promise((resolve) => {
    id += 1;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });

const headers = await benchHeaders();
const common = oneStream(system, rt.origin, headers, 'profile');
const subs = fanout
  ? await subscribe({
      origin: rt.origin,
      wsPath: system.wsPath('profile'),
      count: fanout,
      ack: Boolean(system.ack),
      headers,
      ackPolicy: args.includes('--eager-ack') ? { ackEvery: 1, ackDelayMs: 0 } : {},
    })
  : null;
const rate = opt('--rate', fanout ? 20 : 0);
// Warm up at the measured rate: a closed-loop burst would leave an anchoring
// backlog whose catch-up lands in the profile.
if (rate) await openLoop({ ...common, rate, ms: 1000 });
else await closedLoop({ ...common, clients: 4, ms: 1000 });
await cdp('Profiler.enable');
await cdp('Profiler.setSamplingInterval', { interval: 200 });
await cdp('Profiler.start');
// `--heap`: the isolate's heap in use, sampled every 50 ms during the load
// (long GC pauses follow what survives), and a heap snapshot.
const heapSamples = [];
const heapTimer = args.includes('--heap')
  ? setInterval(async () => {
      const usage = await cdp('Runtime.getHeapUsage');
      if (usage?.usedSize) heapSamples.push(usage.usedSize);
    }, 50)
  : null;
// The snapshot is taken halfway through the load: what the load keeps alive.
const snapshot = args.includes('--heap')
  ? new Promise((r) => setTimeout(r, (seconds * 1000) / 2)).then(async () => {
      const chunks = [];
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        if (msg.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(msg.params.chunk);
      });
      await cdp('HeapProfiler.enable');
      await cdp('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      return chunks.join('');
    })
  : null;
// `--alloc`: where the load allocates (V8's sampling heap profiler, counting
// objects the GC has already collected too): what sets how often it collects.
// `--alloc-old`: only what reached the old generation (objects the scavenger
// collected are left out): what the long mark-compact pauses are made of.
const allocOld = args.includes('--alloc-old');
const alloc = allocOld || args.includes('--alloc');
if (alloc) {
  await cdp('HeapProfiler.enable');
  await cdp('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !allocOld,
  });
}
const load = rate
  ? await openLoop({ ...common, rate, ms: seconds * 1000 })
  : await closedLoop({ ...common, clients: 16, ms: seconds * 1000 });
if (rate) {
  const l = [...load.latencies].sort((a, b) => a - b);
  const q = (p) => (l[Math.min(l.length - 1, Math.floor(p * l.length))] ?? 0).toFixed(1);
  console.log(`open loop ${rate}/s: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
}
const { profile } = await cdp('Profiler.stop');
writeFileSync(path.join(OUT, `${systemName}.cpuprofile`), JSON.stringify(profile));
if (heapTimer) {
  clearInterval(heapTimer);
  const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const h = [...heapSamples].sort((a, b) => a - b);
  console.log(
    `heap in use during the load: min ${mib(h[0] ?? 0)}, median ${mib(h[Math.floor(h.length / 2)] ?? 0)}, max ${mib(h.at(-1) ?? 0)} (${h.length} samples)`,
  );
  writeFileSync(path.join(OUT, `${systemName}.heapsnapshot`), await snapshot);
}
if (alloc) {
  const { profile: heap } = await cdp('HeapProfiler.getSamplingProfile');
  await cdp('HeapProfiler.stopSampling');
  writeFileSync(path.join(OUT, `${systemName}.heapprofile`), JSON.stringify(heap));
  const byFrame = new Map();
  let bytes = 0;
  const walk = (node, stack) => {
    const f = node.callFrame;
    const here = `${f.functionName || '(anonymous)'} ${(f.url || '(native)').split('/').pop()}:${f.lineNumber + 1}`;
    const next = [...stack, here];
    if (node.selfSize) {
      bytes += node.selfSize;
      // The allocating frame and its caller: native frames say little alone.
      const key = next.slice(-2).reverse().join(' < ');
      byFrame.set(key, (byFrame.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children ?? []) walk(child, next);
  };
  walk(heap.head, []);
  const perAppend = (b) => `${(b / load.sent.length / 1024).toFixed(1)} KiB/append`;
  console.log(`allocated ${(bytes / 2 ** 20).toFixed(0)} MiB, ${perAppend(bytes)}`);
  console.log(
    consoleTable(
      ['allocating frame < caller', 'per append'],
      [...byFrame]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 25)
        .map(([k, b]) => [k.slice(0, 110), perAppend(b)]),
    ),
  );
}
console.log(`${load.sent.length} appends profiled`);

// Self time per node → by function and by file.
const deltas = new Map();
profile.samples.forEach((node, i) => {
  deltas.set(node, (deltas.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const byFn = new Map();
const byFile = new Map();
let total = 0;
for (const node of profile.nodes) {
  const us = deltas.get(node.id) ?? 0;
  total += us;
  const f = node.callFrame;
  const file = (f.url || '(native)').split('/').pop();
  const fn = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  byFile.set(file, (byFile.get(file) ?? 0) + us);
}
const top = (m, n) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => [
      k.slice(0, 90),
      `${(us / 1000).toFixed(0)} ms`,
      `${((us / total) * 100).toFixed(1)}%`,
      `${(us / load.sent.length).toFixed(0)} µs/append`,
    ]);
console.log(consoleTable(['function (self time)', 'total', 'share', 'per append'], top(byFn, 30)));
console.log(consoleTable(['file', 'total', 'share', 'per append'], top(byFile, 8)));

ws.close();
await subs?.stop();
await rt.dispose();
standin?.stop();
