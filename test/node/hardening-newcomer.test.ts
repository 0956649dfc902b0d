import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../tools/lib/wrangler-local.mjs';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('a newcomer following the README', () => {
  it('`wirestream --help` prints the usage and exits 0; no command at all exits 2', () => {
    const bin = path.join(ROOT, 'bin/wirestream.mjs');
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('wirestream');
    expect(spawnSync(process.execPath, [bin], { encoding: 'utf8' }).status).toBe(2);
  });

  it('needs nothing downloaded: no npx of a package the repo does not ship', () => {
    expect(README).not.toMatch(/npx (wscat|websocat)/);
  });

  it('reads only streams it wrote before', () => {
    expect(README).not.toMatch(/streams\/project:kv\/wires/);
  });

  it('the CLI claim example does not claim the task the curl example already holds', () => {
    const curlTask = /task\.claimed[\s\S]*?"task_id":"([\d.]+)"/.exec(README)?.[1];
    const cliTask = /npx wirestream claim ([\d.]+)/.exec(README)?.[1];
    expect(curlTask).toBeDefined();
    expect(cliTask).toBeDefined();
    expect(cliTask).not.toBe(curlTask);
  });
});
