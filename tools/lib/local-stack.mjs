// @ts-check
// The whole local stack for a measurement script: the Worker bundled once into
// a temp dir (a watching `wrangler dev` on the working tree restarts whenever
// anyone saves a file, which would cut requests), its D1 migrated, the Hedera
// stand-in, and `wrangler dev` on a free loopback port with fresh secrets.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStandin } from '../hedera-standin/index.mjs';
import {
  freePort,
  migrateD1,
  OFFLINE,
  ROOT,
  WRANGLER,
  wranglerDevArgs,
} from './wrangler-local.mjs';

/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** @param {string} dir */
function snapshot(dir) {
  const built = spawnSync(
    process.execPath,
    [WRANGLER, 'deploy', '--dry-run', '--outdir', path.join(dir, 'dist')],
    { cwd: ROOT, env: OFFLINE, encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(built.stderr);
  cpSync(path.join(ROOT, 'migrations'), path.join(dir, 'migrations'), { recursive: true });
  const toml = readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8')
    .replace(/^main = .*$/m, 'main = "dist/index.js"\nno_bundle = true')
    .replace(/^\[(assets|build|alias|define)\][\s\S]*?(?=^\[)/gm, '');
  writeFileSync(path.join(dir, 'wrangler.toml'), toml);
}

/**
 * Starts the stack and waits until the Worker answers. `stop()` ends
 * `wrangler dev` and the stand-in and removes the temp dir; it also runs if
 * the process is interrupted, so no `wrangler dev` is left behind.
 * @param {string} prefix temp-dir name prefix
 */
export async function startLocalStack(prefix) {
  const work = mkdtempSync(path.join(tmpdir(), prefix));
  const persist = path.join(work, 'state');
  snapshot(work);
  const standin = await startStandin({ host: '127.0.0.1', port: 0 });
  const migrate = migrateD1(persist, work);
  if (!migrate.ok) throw new Error(migrate.output);
  const port = await freePort();
  const admin = `measure-admin-${Math.random().toString(36).slice(2)}`;
  const vars = {
    ADMIN_TOKEN: admin,
    TOKEN_SECRET: `measure-secret-${Math.random().toString(36).slice(2)}`,
    HEDERA_LOCAL_URL: standin.url,
    RATE_PER_SECOND: '0',
  };
  const log = process.env.MEASURE_LOG ? 'inherit' : 'ignore';
  const dev = spawn(process.execPath, await wranglerDevArgs({ port, persist, vars }), {
    cwd: work,
    env: OFFLINE,
    detached: true,
    stdio: ['ignore', log, log],
  });
  const kill = () => {
    try {
      if (dev.pid) process.kill(-dev.pid, 'SIGTERM');
    } catch {}
  };
  const stop = async () => {
    kill();
    await standin.close();
    rmSync(work, { recursive: true, force: true });
  };
  process.on('SIGINT', () => stop().then(() => process.exit(130)));
  process.on('SIGTERM', () => stop().then(() => process.exit(143)));
  process.on('exit', kill);

  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (i > 300) throw new Error('wrangler dev did not start');
      try {
        if ((await fetch(`${base}/v1/schema/wire.json`)).ok) break;
      } catch {}
      await sleep(200);
    }
    // wrangler dev may reload once right after it first answers.
    await sleep(3000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, port, admin, standin, stop };
}
