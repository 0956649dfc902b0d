// @ts-check
// What every local `wrangler dev` of the Worker needs, for the tests'
// dev server (test/support/dev-server.ts) and the measurement stack
// (tools/lib/local-stack.mjs): no telemetry or network, a free loopback port,
// D1 migrated as `npm start` does, and the same command line.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const WRANGLER = path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js');

/** The environment wrangler runs in: the caller's, without telemetry, banner or Cloudflare fetches. */
export const OFFLINE = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: 'true',
};

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 just now */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Applies the D1 migrations to the local state in `persist`, as `npm start` does.
 * @param {string} persist
 * @param {string} cwd the folder whose wrangler.toml and migrations/ apply
 * @returns {{ ok: boolean, output: string }}
 */
export function migrateD1(persist, cwd) {
  const run = spawnSync(
    process.execPath,
    [WRANGLER, 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    { cwd, env: OFFLINE, encoding: 'utf8' },
  );
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/**
 * The state `migrateD1` leaves for `cwd`'s wrangler.toml and migrations/,
 * applied once by wrangler and then copied: the tests start ~30 dev servers,
 * and each `wrangler d1 migrations apply` is a process of its own (~2.5 s).
 * The copy is keyed by those files' contents and wrangler's package.json, so a
 * changed migration (or wrangler) is applied afresh; two processes racing to make it both succeed (one rename wins).
 * @param {string} persist an empty (or new) state folder
 * @param {string} cwd
 * @returns {{ ok: boolean, output: string }}
 */
export function migratedD1Copy(persist, cwd) {
  // wrangler's version too: another version may lay out its local state otherwise.
  const key = createHash('sha256').update(readFileSync(path.join(WRANGLER, '../../package.json')));
  const migrations = path.join(cwd, 'migrations');
  for (const file of [
    'wrangler.toml',
    ...readdirSync(migrations)
      .sort()
      .map((f) => `migrations/${f}`),
  ]) {
    key
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(cwd, file)))
      .update('\0');
  }
  const template = path.join(tmpdir(), `wirestream-d1-${key.digest('hex').slice(0, 16)}`);
  if (!existsSync(template)) {
    const staging = mkdtempSync(path.join(tmpdir(), 'wirestream-d1-staging-'));
    const run = migrateD1(staging, cwd);
    if (!run.ok) {
      rmSync(staging, { recursive: true, force: true });
      return run;
    }
    try {
      renameSync(staging, template);
    } catch {
      // Another process made it first: theirs is the same.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  cpSync(template, persist, { recursive: true });
  return { ok: true, output: '' };
}

/**
 * The Worker's config (in the working directory), its MCP service's
 * (mcp/wrangler.toml: `/mcp`'s SDK and tools) and its STATIC service's
 * (static/wrangler.toml: the dashboard, /v1/openapi.json and /docs as static
 * assets), run side by side by one `wrangler dev`.
 */
export const DEV_CONFIGS = [
  '-c',
  'wrangler.toml',
  '-c',
  path.join(ROOT, 'mcp/wrangler.toml'),
  '-c',
  path.join(ROOT, 'static/wrangler.toml'),
];

/**
 * The node arguments that start `wrangler dev` (both configs) on
 * 127.0.0.1:`port`, not interactive, with `vars` as `--var`s, for `npm run
 * dev` and the tests alike.
 * @param {number} port
 * @param {Record<string, string>} vars
 * @returns {string[]}
 */
export function wranglerDevBaseArgs(port, vars) {
  return [
    WRANGLER,
    'dev',
    ...DEV_CONFIGS,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--show-interactive-dev-session=false',
    // Exposes /__scheduled, so the Worker's cron can be run (wrangler dev fires none).
    '--test-scheduled',
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
  ];
}

/**
 * The node arguments that start `wrangler dev` on 127.0.0.1:`port`, its state
 * in `persist`, its inspector on a free port, with `vars` as `--var`s.
 * @param {{ port: number, persist: string, vars: Record<string, string> }} options
 * @returns {Promise<string[]>}
 */
export async function wranglerDevArgs({ port, persist, vars }) {
  return [
    ...wranglerDevBaseArgs(port, vars),
    '--persist-to',
    persist,
    '--inspector-port',
    String(await freePort()),
  ];
}
