// One fresh Miniflare (one workerd process) per measured run, configured from
// the project's wrangler.toml through wrangler's own translation, with the
// bundle `wrangler deploy --dry-run` produced as the script.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions, unstable_splitSqlQuery } from 'wrangler';
import { cpuMicros, cpuSplitMicros, peakRssMiB, rssMiB, workerdChildren } from './proc.mjs';
import { ROOT } from './targets.mjs';

// Miniflare keeps every Durable Object's SQLite (and D1) in a temp dir, and an
// object's output gate holds each response until its writes are durable. On
// this VM's disk an fsync now and then takes over a second, stalling every
// object at once: in the 100-stream closed loop, 140 of 2,137 appends took
// over 1 s with storage on disk, none of 3,519 on tmpfs (bench/limits.md).
// Cloudflare's storage acknowledges in milliseconds, so every system here
// keeps its storage in memory (tmpfs); BENCH_STORAGE_ON_DISK=1 measures disk.
if (existsSync('/dev/shm') && !process.env.BENCH_STORAGE_ON_DISK) {
  const dir = mkdtempSync('/dev/shm/wirestream-bench-');
  process.env.TMPDIR = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  // Ctrl-C would skip 'exit' and leave the objects' files in memory.
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}

/** Secret the bench signs its bearer tokens with (local only, never deployed). */
export const BENCH_TOKEN_SECRET = 'bench-only-secret-not-for-production-0123456789';

async function applyMigrations(mf, binding, dir) {
  const db = await mf.getD1Database(binding);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  for (const file of files) {
    const statements = unstable_splitSqlQuery(readFileSync(path.join(dir, file), 'utf8'));
    if (statements.length) await db.batch(statements.map((s) => db.prepare(s)));
  }
}

const shared = new Map();
let reuse = false;

/**
 * Quick runs reuse one instance per bundle (starting the Wirestream bundle
 * takes seconds); full runs start a fresh one for every measured run.
 */
export function reuseInstances(on) {
  reuse = on;
}

export async function disposeShared() {
  for (const rt of shared.values()) await (await rt).mf.dispose();
  shared.clear();
}

/**
 * Starts `bundle` (from build()) and resolves once it answers. `bindings`
 * adds or overrides plain vars (e.g. the stand-in's URL); `fresh` starts a new
 * instance even in a quick run (a run whose vars differ from the shared one's).
 */
export async function start(bundle, options = {}) {
  if (options.split) return startSplit(bundle, options);
  if (!reuse || options.fresh) return startFresh(bundle, options);
  if (!shared.has(bundle.name)) shared.set(bundle.name, startFresh(bundle, options));
  const rt = await shared.get(bundle.name);
  return { ...rt, dispose: async () => {} };
}

async function startFresh(
  bundle,
  { bindings = {}, inspectorPort, extra = {}, migrate = true, mcp = false } = {},
) {
  const before = new Set(workerdChildren());
  const started = performance.now();
  const { workerOptions } = unstable_getMiniflareWorkerOptions(bundle.config);
  // The dashboard's static Worker (STATIC, wrangler.toml) is not started: no scenario asks
  // for a static file, and Miniflare refuses a binding to a service it does not run.
  // Wirestream's MCP Worker (MCP) runs only for a scenario that asks (`mcp: true`,
  // scenario 8): on Cloudflare it is an isolate of its own that an append never
  // starts, so it stays out of the other scenarios' start time, memory and CPU.
  const {
    STATIC: _static,
    MCP: mcpBinding,
    ...serviceBindings
  } = workerOptions.serviceBindings ?? {};
  const withMcp = mcp && bundle.mcp && mcpBinding;
  if (mcp && !withMcp) throw new Error(`${bundle.name} has no MCP Worker to start`);
  const main = {
    ...workerOptions,
    serviceBindings: withMcp ? { ...serviceBindings, MCP: mcpBinding } : serviceBindings,
    name: `bench-${bundle.name}`,
    modules: true,
    modulesRoot: bundle.outdir,
    scriptPath: bundle.scriptPath,
    bindings: { ...workerOptions.bindings, TOKEN_SECRET: BENCH_TOKEN_SECRET, ...bindings },
    ...extra,
    durableObjects: { ...workerOptions.durableObjects, ...extra.durableObjects },
  };
  const shared = {
    host: '127.0.0.1',
    port: 0,
    cf: false,
    verbose: false,
    ...(inspectorPort ? { inspectorPort } : {}),
  };
  const mf = new Miniflare(
    withMcp
      ? { ...shared, workers: [main, mcpWorkerOptions(bundle.mcp, mcpBinding)] }
      : { ...shared, ...main },
  );
  const url = await mf.ready;
  const readyMs = performance.now() - started;
  const pid = workerdChildren().find((p) => !before.has(p));
  pin(pid, 0);
  for (const [binding, db] of Object.entries(workerOptions.d1Databases ?? {})) {
    const dir = path.join(path.dirname(bundle.config), db.migrationsDir ?? 'migrations');
    if (binding === 'DB' && migrate) await applyMigrations(mf, binding, dir).catch(() => {});
  }
  return {
    mf,
    url: url.href.replace(/\/$/, ''),
    origin: url,
    pid,
    readyMs,
    cpu: () => (pid ? cpuMicros(pid) : Number.NaN),
    cpuSplit: () => (pid ? cpuSplitMicros(pid) : { user: Number.NaN, system: Number.NaN }),
    peakRss: () => (pid ? peakRssMiB(pid) : Number.NaN),
    rss: () => (pid ? rssMiB(pid) : Number.NaN),
    dispose: () => mf.dispose(),
  };
}

/** The MCP Worker as Miniflare runs it, under the name the MCP binding gives. */
function mcpWorkerOptions(mcp, binding) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(mcp.config);
  return {
    ...workerOptions,
    name: typeof binding === 'string' ? binding : binding.name,
    modules: true,
    modulesRoot: mcp.outdir,
    scriptPath: mcp.scriptPath,
  };
}

/**
 * Wirestream as Cloudflare runs it, where every Durable Object has a thread of
 * its own: the HCS side (TopicObject, TopicDirectory) in a second workerd
 * process, reached through Miniflare's dev registry (cross-process RPC, as
 * between two `wrangler dev` sessions), with D1 in one shared directory (only
 * the TopicObject writes it here). Under a single Miniflare every object shares
 * one thread, so anchoring competes with appending; this shows the sequencer
 * without that. CPU and memory are the two processes' sums.
 */
async function startSplit(bundle, { bindings = {}, inspectorPort, inspectFront = false } = {}) {
  const dir = mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'wirestream-split-'));
  const api = `bench-${bundle.name}-api`;
  const topics = `bench-${bundle.name}-topics`;
  const shared = {
    unsafeDevRegistryPath: path.join(dir, 'registry'),
    d1Persist: path.join(dir, 'd1'),
  };
  const remote = (className, scriptName) => ({ className, scriptName, useSQLite: true });
  const hcs = await startFresh(bundle, {
    bindings,
    // With an inspector port, profile the HCS side (bench/profile.mjs --system
    // wirestream-split), or with `inspectFront` the API side (`--front`).
    ...(inspectFront ? {} : { inspectorPort }),
    migrate: false,
    extra: {
      ...shared,
      name: topics,
      durableObjects: {
        STREAMS: remote('StreamObject', api),
        RATE_LIMITER: remote('RateLimiter', api),
        TICKETS: remote('TicketLedger', api),
      },
    },
  });
  const front = await startFresh(bundle, {
    bindings,
    ...(inspectFront ? { inspectorPort } : {}),
    extra: {
      ...shared,
      name: api,
      durableObjects: {
        TOPICS: remote('TopicObject', topics),
        TOPIC_DIRECTORY: remote('TopicDirectory', topics),
      },
    },
  });
  pin(hcs.pid, 1);
  const both = (f) => f(front) + f(hcs);
  return {
    ...front,
    pids: [front.pid, hcs.pid],
    readyMs: front.readyMs + hcs.readyMs,
    cpu: () => both((rt) => rt.cpu()),
    cpuSplit: () => {
      const a = front.cpuSplit();
      const b = hcs.cpuSplit();
      return { user: a.user + b.user, system: a.system + b.system };
    },
    peakRss: () => both((rt) => rt.peakRss()),
    rss: () => both((rt) => rt.rss()),
    dispose: async () => {
      await front.dispose();
      await hcs.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `BENCH_PIN=1`: the (front) workerd process on core 0, everything else — this
 * process with the load generator and subscribers, the stand-in, a split
 * system's HCS side — on core 1. The system under test then has a core of its
 * own, as a Durable Object has a thread of its own on Cloudflare.
 */
function pin(pid, core) {
  if (process.env.BENCH_PIN !== '1' || !pid) return;
  execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
}
if (process.env.BENCH_PIN === '1') pin(process.pid, 1);

export { ROOT };
