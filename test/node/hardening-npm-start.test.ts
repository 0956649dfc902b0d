import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../../tools/lib/wrangler-local.mjs';

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

function npmStart(port: number, standin: number): { npm: ChildProcess; output: () => string } {
  let output = '';
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), STANDIN_PORT: String(standin) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  npm.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  return { npm, output: () => output };
}

describe('npm start as a process tree', () => {
  it('stops everything when only npm is signalled, and starts again on the same ports', async () => {
    const port = await freePort();
    const standin = await freePort();
    const base = `http://127.0.0.1:${port}/v1/schema/wire.json`;
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      const { npm, output } = npmStart(port, standin);
      const up = await until(() => answers(base), 90_000);
      if (!up) npm.kill('SIGKILL');
      expect(up, output()).toBe(true);
      // Only npm, as an IDE stop button or `kill <pid>` does.
      npm.kill(signal);
      const down = await until(
        async () => !(await answers(base)) && !(await answers(`http://127.0.0.1:${standin}/`)),
        15_000,
      );
      expect(down, `${signal}: still serving\n${output()}`).toBe(true);
    }
  }, 240_000);

  it('says which process holds a taken port, instead of a raw EADDRINUSE', async () => {
    const port = await freePort();
    const standin = await freePort();
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(port, '127.0.0.1', r));
    try {
      const { npm, output } = npmStart(port, standin);
      const code = await new Promise<number | null>((r) => npm.once('exit', r));
      expect(code).not.toBe(0);
      expect(output()).toContain(
        `port ${port} for the Worker (PORT) is taken by pid ${process.pid}`,
      );
      expect(output()).not.toContain('EADDRINUSE');
    } finally {
      holder.close();
    }
  }, 60_000);
});
