#!/usr/bin/env node
// `npm start`: everything local, no network. Applies the local D1 migrations,
// then serves the Worker (and its Durable Objects) on http://127.0.0.1:8787.
//
// The whole tree (stand-in, wrangler, workerd) stops together: on SIGINT,
// SIGTERM or SIGHUP of this process, when npm (or the shell between) goes
// away without passing the signal on (IDE stop buttons, `kill <npm pid>`),
// and when wrangler exits. `PORT` / `STANDIN_PORT` move the two ports;
// `WIRESTREAM_LOG_REQUESTS=1` prints a line per request.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { ensureDevSecrets, printTokensWhenReady } from './dev-tokens.mjs';
import { startStandin } from './hedera-standin/index.mjs';
import { OFFLINE, WRANGLER, wranglerDevBaseArgs } from './lib/wrangler-local.mjs';

const PORT = Number(process.env.PORT ?? 8787);
const STANDIN_PORT = Number(process.env.STANDIN_PORT ?? 5551);
const verbose = process.env.WIRESTREAM_LOG_REQUESTS === '1';

/** The process listening on 127.0.0.1:`port` (from /proc), for a useful refusal. */
function holderOf(port) {
  try {
    const hex = port.toString(16).toUpperCase().padStart(4, '0');
    const inodes = new Set();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols[3] === '0A' && cols[1]?.endsWith(`:${hex}`)) inodes.add(cols[9]);
      }
    }
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          if (inode && inodes.has(inode)) {
            const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
            return `pid ${pid} (${cmd.slice(0, 120)})`;
          }
        }
      } catch {
        // Not ours to read, or gone.
      }
    }
  } catch {
    // No /proc (macOS): the port alone.
  }
  return 'another process';
}

function portFree(port) {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

for (const [port, what] of [
  [PORT, 'the Worker (PORT)'],
  [STANDIN_PORT, 'the Hedera stand-in (STANDIN_PORT)'],
]) {
  if (!(await portFree(port))) {
    console.error(
      `port ${port} for ${what} is taken by ${holderOf(port)}.\n` +
        'Stop it (an earlier `npm start`?) or pick another port, e.g. PORT=8788 npm start.',
    );
    process.exit(1);
  }
}

if (!existsSync('.dev.vars')) {
  copyFileSync('.dev.vars.example', '.dev.vars');
  console.log('created .dev.vars from .dev.vars.example');
}
const secrets = ensureDevSecrets('.dev.vars');

// Quiet unless it fails: wrangler prints a table per migration.
const migrate = spawnSync(
  process.execPath,
  [WRANGLER, 'd1', 'migrations', 'apply', 'DB', '--local'],
  { env: OFFLINE, encoding: 'utf8' },
);
if (migrate.status !== 0) {
  process.stderr.write(`${migrate.stdout}${migrate.stderr}`);
  process.exit(migrate.status ?? 1);
}
// wrangler lists the migrations it applies by file name (and prints ✅ for
// other steps too, so those are no count).
const applied = /No migrations to apply/.test(migrate.stdout)
  ? []
  : readdirSync('migrations').filter((f) => f.endsWith('.sql') && migrate.stdout.includes(f));
console.log(
  `D1 (local): ${applied.length > 0 ? `${applied.length} migration(s) applied` : 'up to date'}`,
);

// The local Hedera network the Worker anchors to; its ledger survives restarts.
const hedera = await startStandin({ port: STANDIN_PORT, dataFile: '.local/hedera.json' });
console.log(`hedera stand-in on ${hedera.url} (ledger .local/hedera.json)`);

const base = `http://127.0.0.1:${PORT}`;
const { CI: _ci, ...devEnv } = OFFLINE;
// Its own process group, so stopping it stops workerd too.
const dev = spawn(
  process.execPath,
  [
    ...wranglerDevBaseArgs(PORT, { HEDERA_LOCAL_URL: hedera.url }),
    ...(verbose ? [] : ['--log-level', 'warn']),
  ],
  { env: devEnv, stdio: 'inherit', detached: true },
);
// The HCS listener's Cron Trigger (wrangler.toml), once a minute as deployed.
setInterval(() => {
  fetch(`${base}/__scheduled?cron=*+*+*+*+*`).catch(() => {});
}, 60_000).unref();
printTokensWhenReady(base, secrets);

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  try {
    if (dev.exitCode === null && dev.pid !== undefined) process.kill(-dev.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  const hard = setTimeout(() => {
    try {
      if (dev.pid !== undefined) process.kill(-dev.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 5000);
  if (dev.exitCode === null) await new Promise((r) => dev.once('exit', r));
  clearTimeout(hard);
  await hedera.close().catch(() => {});
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
dev.on('exit', (code) => stop(code ?? 0));

/** This process's parent and grandparent (npm behind `sh -c`), as /proc says now. */
function lineage() {
  const parentOf = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return 0;
    }
  };
  const parent = process.ppid;
  return `${parent}/${parentOf(parent)}`;
}
// npm does not pass SIGTERM on to its script: when npm (or the shell under it)
// is gone, the process it started is handed to another parent. Stop then.
const born = lineage();
setInterval(() => {
  if (lineage() !== born) stop(0);
}, 500).unref();
