import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Standin, startStandin } from '../../tools/hedera-standin/index.mjs';
import {
  freePort,
  migratedD1Copy,
  OFFLINE,
  ROOT,
  wranglerDevArgs,
} from '../../tools/lib/wrangler-local.mjs';
import { forFile } from './per-file';

/**
 * The real Worker under `wrangler dev` on a free 127.0.0.1 port, for tests
 * that need a server over real sockets (SDK reconnects, the browser). Its
 * state lives in a temp dir, so `restart()` brings back the same streams
 * the way a redeploy would.
 */
export interface DevServer {
  readonly url: string;
  readonly port: number;
  /** The `ADMIN_TOKEN` the server was started with. */
  readonly adminToken: string;
  /** Its local state (`--persist-to`): D1, R2 and the Durable Objects, for `wrangler … --local`. */
  readonly persist: string;
  /** Stops and starts again on the same state; `vars` replace some of its vars (a redeploy with new config). */
  restart(vars?: Record<string, string>): Promise<void>;
  /** Stops wrangler and workerd, keeping the port, the state and the stand-in (an outage). */
  down(): Promise<void>;
  /** Starts them again after `down()`, on the same port and state. */
  up(): Promise<void>;
  /** Kills wrangler and workerd at once (SIGKILL, no shutdown), then starts them again on the same state. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
  /** The Hedera stand-in the Worker anchors to (it outlives restarts). */
  readonly standin: Standin;
  /**
   * Sets the stand-in's fault modes (`POST /__standin/faults`): network-wide,
   * or one topic's with `topicId`; `{}` clears that scope. Throws if refused.
   */
  faults(spec: Record<string, unknown>): Promise<void>;
  /** Everything the server printed (for failure messages). */
  log(): string;
}

/** wrangler dev gives up when a port it picked was taken meanwhile (two suites share the machine). */
const PORT_RACE = /Address already in use/;

export async function startDevServer(vars: Record<string, string> = {}): Promise<DevServer> {
  let port = await freePort();
  const persist = mkdtempSync(path.join(tmpdir(), 'wirestream-dev-'));
  const adminToken = `test-admin-${Math.random().toString(36).slice(2)}`;
  const standin = await startStandin({ host: '127.0.0.1', port: 0 });
  const allVars = {
    ADMIN_TOKEN: adminToken,
    TOKEN_SECRET: `test-secret-${Math.random().toString(36).slice(2)}`,
    HEDERA_NETWORK: 'local',
    HEDERA_LOCAL_URL: standin.url,
    // Tests drive bursts from one sender; the rate limiter has its own tests.
    RATE_PER_SECOND: '0',
    ...vars,
  };
  // The read models live in D1: its migrations applied as `npm start` does
  // (by wrangler, once per test run, then copied).
  const migrate = migratedD1Copy(persist, ROOT);
  if (!migrate.ok) throw new Error(`D1 migrations failed:\n${migrate.output}`);
  let output = '';
  let child: ChildProcess | null = null;

  const launch = async () => {
    const args = await wranglerDevArgs({ port, persist, vars: allVars });
    // Its own process group, so stopping it also stops workerd.
    const proc = spawn(process.execPath, args, {
      cwd: ROOT,
      env: OFFLINE,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    proc.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    await waitUntilServing(`http://127.0.0.1:${port}`, proc, () => output);
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.pid === undefined) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    try {
      process.kill(-proc.pid, signal);
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        if (proc.pid !== undefined) process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
    await waitUntilClosed(port);
  };

  // The first start only: a port taken between freePort() and wrangler's bind
  // (or re-bind, when its watcher reloads once at start) is retried on fresh
  // ports. A restart keeps its port, as a redeploy keeps its address.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      if (attempt >= 3 || !PORT_RACE.test(String(error))) throw error;
      console.warn(`wrangler dev lost a port race (attempt ${attempt}); starting again`);
      // wrangler exited; its workerd (same process group) may not have.
      const lost = child as ChildProcess | null;
      try {
        if (lost?.pid !== undefined) process.kill(-lost.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      child = null;
      output = '';
      port = await freePort();
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adminToken,
    persist,
    restart: async (vars = {}) => {
      Object.assign(allVars, vars);
      await stop();
      await launch();
    },
    down: () => stop(),
    up: () => launch(),
    crashAndRestart: async () => {
      await stop('SIGKILL');
      await launch();
    },
    stop: async () => {
      await stop();
      await standin.close();
      rmSync(persist, { recursive: true, force: true });
    },
    standin,
    faults: async (spec) => {
      const res = await fetch(`${standin.url}/__standin/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(spec),
      });
      if (res.status !== 200) throw new Error(`faults: ${res.status} ${await res.text()}`);
    },
    log: () => output,
  };
}

async function waitUntilServing(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`wrangler dev exited:\n${log()}`);
    try {
      const res = await fetch(`${url}/v1/schema/wire.json`);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`wrangler dev did not start within 60 s:\n${log()}`);
}

async function waitUntilClosed(port: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A token for `sub` if the server has auth (POST /v1/tokens), else undefined. */
export async function tokenFor(
  server: DevServer,
  sub: string,
  roles: string[] = ['developer'],
): Promise<string | undefined> {
  const res = await fetch(`${server.url}/v1/tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub, scopes: ['append', 'read', 'claim'], roles }),
  });
  if (res.status === 404) return undefined;
  if (res.status !== 201) throw new Error(`POST /v1/tokens: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/**
 * A dev server for the tests of one file: started (with `vars`, and a token for
 * `sender`) before them and stopped after them. Read `server` and `token`
 * inside the tests, once `beforeAll` has run.
 */
export function devServerForFile(
  sender: string,
  timeoutMs = 90_000,
  vars: Record<string, string> = {},
): { readonly server: DevServer; readonly token: string | undefined } {
  const current = forFile(
    'the dev server',
    () => startDevServer(vars),
    (server) => server.stop(),
    (server) => tokenFor(server, sender),
    timeoutMs,
  );
  return {
    get server() {
      return current().opened;
    },
    get token() {
      return current().ready;
    },
  };
}
