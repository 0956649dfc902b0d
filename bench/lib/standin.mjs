// The project's Hedera stand-in (tools/hedera-standin/) in its own process,
// so its CPU is not charged to the load generator's event loop. Every
// Wirestream run anchors through it: anchoring is part of an append's cost.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Starts the stand-in from `srcDir`; resolves to `{url, faults(), stop()}` or null. */
export async function startStandin(srcDir) {
  const cli = path.join(srcDir, 'tools/hedera-standin/cli.mjs');
  if (!existsSync(cli)) return null;
  const child = spawn(process.execPath, [cli, '--port', '0', '--host', '127.0.0.1'], {
    cwd: srcDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`stand-in exited with ${code}: ${out}`)));
  });
  const stopOnExit = () => child.kill('SIGTERM');
  process.on('exit', stopOnExit);
  return {
    url,
    pid: child.pid,
    async faults(spec) {
      const res = await fetch(`${url}/__standin/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(spec),
      });
      if (!res.ok) throw new Error(`faults ${res.status}: ${await res.text()}`);
    },
    async info() {
      return (await fetch(`${url}/__standin/info`)).json();
    },
    stop() {
      process.off('exit', stopOnExit);
      child.kill('SIGTERM');
    },
  };
}
