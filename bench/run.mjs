#!/usr/bin/env node
// `npm run bench` — Wirestream side by side with a bare Durable Object (the
// ceiling) and the Agents SDK / PartyServer peers, all in local workerd.
// `--quick` (under a minute) for development; `--worktree` measures the
// working tree instead of a snapshot of HEAD. Prints the table; a full run
// also writes BENCHMARKS.md.
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { build, ensurePeers, snapshotHead } from './lib/build.mjs';
import { markdown, printAll } from './lib/report.mjs';
import { OUT, PROJECTS, ROOT } from './lib/targets.mjs';
import { appendScenario } from './scenarios/append.mjs';
import { coldStartScenario } from './scenarios/cold-start.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const worktree = args.includes('--worktree');
const started = performance.now();
const log = (line) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

// The rate limit is on (so its cost is measured) but set out of reach: these
// scenarios measure the sequencer, not one sender's quota. The subscriber cap
// is raised to let 1,000 sockets follow one stream (default 256).
const BINDINGS = { RATE_PER_SECOND: '1000000', RATE_BURST: '1000000', WS_MAX_SUBSCRIBERS: '2000' };

const P = quick
  ? { reps: 1, warmMs: 300, closedMs: 1500, openMs: 1000, fanRate: 20, fanMs: 1500, coldReps: 1 }
  : { reps: 3, warmMs: 1000, closedMs: 4000, openMs: 3000, fanRate: 20, fanMs: 4000, coldReps: 3 };

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
mkdirSync(OUT, { recursive: true });
if (!quick) ensurePeers();

const srcDir = worktree ? ROOT : snapshotHead().dir;
const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
log(
  `building bundles (wrangler deploy --dry-run) from ${worktree ? 'the working tree' : `HEAD ${commit}`}`,
);
// Quick runs skip the peers (the Agents bundle alone takes seconds to start).
const names = quick ? ['wirestream', 'ceiling'] : Object.keys(PROJECTS);
const built = await Promise.all([
  ...names.map((n) => build(n, { srcDir })),
  quick ? null : build('wirestream', { srcDir, minify: true }),
]);
const builds = Object.fromEntries(names.map((n, i) => [n, built[i]]));
const sizes = Object.fromEntries(names.map((n) => [n, { ...builds[n], label: PROJECTS[n].label }]));
if (built.at(-1)) sizes.wirestreamMin = built.at(-1);
const hederaInBundle = readFileSync(builds.wirestream.scriptPath, 'utf8').includes(
  'TopicMessageSubmitTransaction',
);

const run = (o) =>
  appendScenario({ ...o, bindings: BINDINGS, warmMs: P.warmMs, oneInstance: quick }, builds, log);

const results = { sizes, hederaInBundle };
log('scenario 1: append, one stream');
results.append1 = await run({
  id: 'append1',
  systems: quick ? ['ceiling-rpc', 'wirestream'] : ['ceiling-rpc', 'ceiling-fetch', 'wirestream'],
  streams: 1,
  clients: 16,
  rate: quick ? 50 : undefined,
  reps: P.reps,
  closedMs: P.closedMs,
  openMs: P.openMs,
});
log('scenario 2: append, 100 streams');
results.appendMany = await run({
  id: 'append100',
  systems: ['ceiling-rpc', 'wirestream'],
  streams: 100,
  clients: 100,
  rate: quick ? 50 : undefined,
  reps: quick ? 1 : 2,
  closedMs: P.closedMs,
  openMs: P.openMs,
});
log('scenario 4a: append + broadcast, 100 subscribers');
results.broadcast = await run({
  id: 'broadcast100',
  systems: quick
    ? ['ceiling-broadcast', 'wirestream']
    : ['ceiling-broadcast', 'agents', 'partyserver', 'wirestream'],
  streams: 1,
  clients: 16,
  subscribers: 100,
  rate: quick ? 25 : undefined,
  reps: P.reps,
  closedMs: P.closedMs,
  openMs: P.openMs,
});
log('scenario 4b: fan-out, 1,000 subscribers');
results.fanout = await run({
  id: 'fanout1000',
  systems: quick ? ['wirestream'] : ['ceiling-broadcast', 'agents', 'partyserver', 'wirestream'],
  streams: 1,
  clients: 0,
  subscribers: 1000,
  rate: P.fanRate,
  reps: quick ? 1 : 2,
  openMs: P.fanMs,
});
log('scenario 7: cold start and size');
results.cold = await coldStartScenario(
  { reps: P.coldReps, projects: names, bindings: BINDINGS },
  builds,
  log,
);

const seconds = (performance.now() - started) / 1000;
results.meta = {
  command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
  date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  commit,
  worktree,
  node: process.versions.node,
  cpus: cpus().length,
  miniflare: JSON.parse(
    readFileSync(path.join(ROOT, 'node_modules/miniflare/package.json'), 'utf8'),
  ).version,
  loadBefore,
  loadAfter: loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
  seconds,
};

console.log(`\n${printAll(results)}\n`);
const limits = readFileSync(path.join(import.meta.dirname, 'limits.md'), 'utf8');
const target = quick ? path.join(OUT, 'BENCHMARKS.quick.md') : path.join(ROOT, 'BENCHMARKS.md');
writeFileSync(target, markdown(results, limits));
writeFileSync(
  path.join(OUT, quick ? 'results.quick.json' : 'results.json'),
  JSON.stringify(results, (k, v) => (k.endsWith('Samples') ? undefined : v), 2),
);
log(`wrote ${path.relative(ROOT, target)} in ${seconds.toFixed(0)} s`);
