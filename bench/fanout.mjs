#!/usr/bin/env node
// `node bench/fanout.mjs [--worktree | --src DIR] [--subs 1000] [--seconds 4]
//   [--system S] [--ack-every N --ack-delay MS] [--trace]`: scenario 4b alone (one stream,
// N subscribers, open loop of 20 appends/s) in a fresh instance, with the
// Hedera stand-in — for comparing fan-out before/after a change without the
// whole `npm run bench`. S is a key of SYSTEMS in bench/lib/targets.mjs
// (default wirestream; e.g. ceiling-broadcast). Prints delivery p50/p99
// (append's intended send time → last subscriber), split into the time to the
// first subscriber and the broadcast's spread (first → last), and workerd CPU
// per append.
// CPU is counted from the start of the open loop until every subscriber has
// the last Wire: near saturation, work still queued when the loop ends would
// otherwise go uncounted and a slower system would look cheaper.
import path from 'node:path';
import { option } from './lib/args.mjs';
import { benchHeaders } from './lib/auth.mjs';
import { build, snapshotHead } from './lib/build.mjs';
import { closedLoop, openLoop } from './lib/load.mjs';
import { followedStream } from './lib/one-stream.mjs';
import { start } from './lib/runtime.mjs';
import { startStandin } from './lib/standin.mjs';
import { summarize } from './lib/stats.mjs';
import { BENCH_BINDINGS, ROOT, SYSTEMS } from './lib/targets.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => option(args, name, fallback);
const srcDir = args.includes('--src')
  ? path.resolve(opt('--src'))
  : args.includes('--worktree')
    ? ROOT
    : snapshotHead().dir;
const systemName = opt('--system', 'wirestream');
const system = SYSTEMS[systemName];
const count = Number(opt('--subs', 1000));
const ackPolicy = args.includes('--ack-every')
  ? { ackEvery: Number(opt('--ack-every')), ackDelayMs: Number(opt('--ack-delay', 1000)) }
  : (system.ackPolicy ?? {});

const standin = await startStandin(srcDir);
const bundle = await build(system.project, { srcDir });
const rt = await start(bundle, {
  bindings: { ...BENCH_BINDINGS, ...(standin ? { HEDERA_LOCAL_URL: standin.url } : {}) },
});
const headers = await benchHeaders();
const stream = 'fanout-s0';
const { common, subs } = await followedStream(system, rt.origin, headers, stream, {
  count,
  ack: Boolean(system.ack),
  ackPolicy,
});
try {
  await closedLoop({ ...common, clients: 4, ms: 500 });
  const cpu0 = rt.cpuSplit();
  const open = await openLoop({ ...common, rate: 20, ms: Number(opt('--seconds', 4)) * 1000 });
  const upTo = Math.max(0, ...open.sent.map((s) => s.seq));
  const record = await subs.wait(upTo, 15_000);
  const cpu1 = rt.cpuSplit();
  const latencies = [];
  // Split each delivery: intended send → first subscriber (append + waiting
  // for the object's thread) and first → last subscriber (the broadcast).
  const firsts = [];
  const spreads = [];
  for (const { seq, at } of open.sent) {
    if (record.counts[seq] < subs.connected) continue;
    latencies.push(record.lastAt[seq] - at);
    firsts.push(record.firstAt[seq] - at);
    spreads.push(record.lastAt[seq] - record.firstAt[seq]);
  }
  const n = Math.max(1, open.sent.length);
  const d = summarize(latencies);
  const first = summarize(firsts);
  const spread = summarize(spreads);
  const f = (v) => (Number.isFinite(v) ? Math.round(v) : String(v));
  console.log(
    JSON.stringify({
      system: systemName,
      src: srcDir,
      ackPolicy,
      subscribers: subs.connected,
      delivered: `${latencies.length}/${open.sent.length}`,
      p50: f(d.p50),
      p99: f(d.p99),
      firstP50: f(first.p50),
      firstP99: f(first.p99),
      spreadP50: f(spread.p50),
      spreadP99: f(spread.p99),
      cpuUsPerAppend: f((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / n),
      sysUsPerAppend: f((cpu1.system - cpu0.system) / n),
      appendP99: f(summarize(open.latencies).p99),
      errors: open.errors,
      closes: record.closes,
    }),
  );
  // `--trace`: per Wire in append order, ms to the first/last subscriber: a
  // late first is a broadcast that began late (the thread was busy), a wide
  // gap a slow broadcast.
  if (args.includes('--trace')) {
    console.log(firsts.map((v, i) => `${Math.round(v)}/${Math.round(latencies[i])}`).join(' '));
  }
} finally {
  await subs.stop();
  await rt.dispose();
  standin?.stop();
}
