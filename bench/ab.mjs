#!/usr/bin/env node
// `node bench/ab.mjs [--reps N] [--seconds S] [--rate R] [--subs N] [--bind K=V …] A B …` — before/after
// for one change: each argument is a source tree (a directory, a git revision
// snapshotted with `git archive`, or `.`: this working tree's tracked files),
// built like the bench builds Wirestream and measured on the one-stream closed
// loop (16 clients), the trees interleaved within each repetition so the
// machine's drift hits all alike. Prints the median throughput and workerd CPU
// µs per append, and the bare-DO ceiling measured in the same run for the
// ratio. With `--rate R` each run then also follows an open loop at R appends/s
// (below saturation) and reports its p50/p99, its CPU per append and the Hedera
// stand-in's (a separate process sharing the two cores): the latency target's
// view. Add `--open-only` to skip the closed loop: then the open loop's CPU is
// the sustained cost of an append, anchoring included. `--rebuild` measures
// scenario 6's rebuild instead (a 2 s burst of Wires, anchored, then
// `POST /v1/admin/rebuild` timed to its `done` line), interleaved the same way.
import { execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from './lib/build.mjs';
import { measure } from './lib/measure.mjs';
import { startStandin } from './lib/standin.mjs';
import { median, percentile, summarize } from './lib/stats.mjs';
import { consoleTable } from './lib/table.mjs';
import { BENCH_BINDINGS, OUT, ROOT } from './lib/targets.mjs';
import { projectionScenario } from './scenarios/projection.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args.splice(i, 2)[1]) : fallback;
};
const reps = flag('--reps', 3);
const seconds = flag('--seconds', 4);
const rate = flag('--rate', 0);
// `--subs N`: N WebSocket subscribers follow the stream (scenario 4a is 100).
const subs = flag('--subs', 0);
// `--open-only`: no closed loop, so the open loop's CPU per append is the
// sustained cost (anchoring keeps up) rather than a burst's leftover backlog.
const openOnly = args.includes('--open-only') ? args.splice(args.indexOf('--open-only'), 1) : null;
const rebuildOnly = args.includes('--rebuild') ? args.splice(args.indexOf('--rebuild'), 1) : null;
const bindings = { ...BENCH_BINDINGS };
for (let i = args.indexOf('--bind'); i >= 0; i = args.indexOf('--bind')) {
  const [k, v] = args.splice(i, 2)[1].split('=');
  bindings[k] = v;
}

function sourceOf(ref) {
  // This repository's own working tree is measured as what a commit of it
  // would hold (`git stash create`, tracked files only): built in place it
  // would also pick up the local .dev.vars, which HEAD's snapshot lacks.
  const worktree = existsSync(ref) && path.resolve(ref) === ROOT;
  if (existsSync(ref) && !worktree) return path.resolve(ref);
  const rev = worktree
    ? execSync('git stash create', { cwd: ROOT }).toString().trim() || 'HEAD'
    : ref;
  const dir = path.join(OUT, 'ab', worktree ? 'worktree' : ref.replace(/[^\w.-]/g, '_'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execSync(`git archive ${rev} | tar -x -C ${dir}`, { cwd: ROOT });
  execSync(`ln -s ${path.join(ROOT, 'node_modules')} ${path.join(dir, 'node_modules')}`);
  return dir;
}

const trees = args.length ? args : [ROOT];
const builds = [];
for (const ref of trees) {
  const b = await build('wirestream', { srcDir: sourceOf(ref) });
  const copy = path.join(OUT, 'ab', `bundle-${builds.length}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(b.outdir, copy, { recursive: true });
  builds.push({
    ref,
    build: { ...b, outdir: copy, scriptPath: path.join(copy, path.basename(b.scriptPath)) },
  });
}
const ceiling = await build('ceiling');
const standin = await startStandin(ROOT);
if (standin) bindings.HEDERA_LOCAL_URL = standin.url;

if (rebuildOnly) {
  const speeds = new Map(builds.map((b) => [b.ref, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const b of builds) {
      const p = await projectionScenario(
        { standin, bindings, rate: 20, pollMs: 50, openMs: 1500, burstMs: 2000 },
        { wirestream: b.build },
        () => {},
      );
      const r = p?.rebuild;
      speeds.get(b.ref).push(r ? r.wiresPerSecond : Number.NaN);
      console.log(
        `rep ${rep + 1} ${b.ref}: ${r ? `${r.wires} Wires in ${r.seconds.toFixed(2)} s = ${Math.round(r.wiresPerSecond)}/s (server says ${r.reported}/s)` : `failed: ${p?.rebuildError}`}`,
      );
    }
  }
  standin?.stop();
  console.log(
    consoleTable(
      ['tree', 'rebuild Wires/s (median, wall)'],
      [...speeds].map(([ref, list]) => [ref, Math.round(median(list))]),
    ),
  );
  process.exit(0);
}

const rows = new Map([...builds.map((b) => [b.ref, []]), ['ceiling', []]]);
for (let rep = 0; rep < reps; rep++) {
  const runs = [
    ...builds.map((b) => [b.ref, 'wirestream', b.build]),
    // With subscribers the ceiling is the hand-written broadcaster (scenario 4a's).
    ['ceiling', subs > 0 ? 'ceiling-broadcast' : 'ceiling-rpc', ceiling],
  ];
  for (const [ref, system, bundle] of runs) {
    const r = await measure({
      id: `ab${rep}`,
      system,
      builds: { [bundle.name]: bundle },
      streams: 1,
      clients: openOnly ? 0 : 16,
      ...(subs > 0 ? { subscribers: subs } : {}),
      closedMs: seconds * 1000,
      // As the full run: a ceiling that has written less has a shorter tail
      // (bench/limits.md), so a shorter warm-up would flatter it.
      warmMs: 1000,
      rate,
      openMs: seconds * 1000,
      bindings,
      standinPid: standin?.pid,
    });
    rows.get(ref).push(r);
    const delivery = r.delivery
      ? `; delivery to the last subscriber p50 ${r.delivery.p50.toFixed(2)} p99 ${r.delivery.p99.toFixed(1)} ms, ${Math.round(r.openCpuWithTailPerAppendUs)} µs/append with the tail`
      : '';
    const open = rate
      ? `; open ${rate}/s p50 ${r.openLatency.p50.toFixed(1)} p99 ${r.openLatency.p99.toFixed(1)} ms, ${Math.round(r.openCpuPerAppendUs)} µs/append (stand-in ${Math.round(r.openStandinPerAppendUs ?? 0)}; load generator stalled p99 ${r.openClientStallP99Ms.toFixed(1)} / max ${r.openClientStallMaxMs.toFixed(1)} ms)${delivery}`
      : '';
    console.log(
      `rep ${rep + 1} ${ref}: ${openOnly ? '' : `${Math.round(r.throughput ?? 0)}/s, ${Math.round(r.cpuPerAppendUs ?? 0)} µs/append, `}errors ${r.errors ?? 0}${open}`,
    );
  }
}
standin?.stop();
const ceil = median(rows.get('ceiling').map((r) => r.throughput));
console.log(
  consoleTable(
    [
      'tree',
      // --open-only runs no closed loop: no throughput to show.
      ...(openOnly ? [] : ['appends/s', 'CPU µs/append', 'vs ceiling']),
      ...(rate ? ['open p99 ms', 'open CPU µs', 'stand-in µs'] : []),
      ...(rate && subs ? ['delivery p50 / p99 ms', 'CPU µs with tail'] : []),
    ],
    [...rows].map(([ref, list]) => {
      const t = median(list.map((r) => r.throughput));
      // Delivery to the last subscriber over every repetition's samples.
      const delivery = summarize(list.flatMap((r) => r.deliverySamples ?? []));
      const p99 = percentile(
        list.flatMap((r) => r.openSamples ?? []),
        99,
      );
      return [
        ref,
        ...(openOnly
          ? []
          : [
              Math.round(t),
              Math.round(median(list.map((r) => r.cpuPerAppendUs))),
              `${Math.round((t / ceil) * 100)}%`,
            ]),
        ...(rate
          ? [
              p99.toFixed(1),
              Math.round(median(list.map((r) => r.openCpuPerAppendUs))),
              Math.round(median(list.map((r) => r.openStandinPerAppendUs ?? 0))),
            ]
          : []),
        ...(rate && subs
          ? [
              `${delivery.p50.toFixed(2)} / ${delivery.p99.toFixed(1)}`,
              Math.round(median(list.map((r) => r.openCpuWithTailPerAppendUs))),
            ]
          : []),
      ];
    }),
  ),
);
