// `npm run verify` against the stand-in: the chain recomputed from mirror
// data alone, exit 0 when intact and 1 once a running hash is tampered with.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { submitToStandin } from '../support/standin-submit';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Creates a topic and submits three messages (one chunked). */
const topicWithMessages = (url: string) =>
  submitToStandin(url, null, ['first', 'chunked '.repeat(300), 'last']);

async function verify(...args: string[]) {
  try {
    const { stdout } = await run('node', ['tools/verify.mjs', ...args], { cwd: ROOT });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run verify', { timeout: 60_000 }, () => {
  it('passes an intact topic and fails once the mirror serves a tampered running hash', async () => {
    const url = inject('standinUrl');
    const topicId = await topicWithMessages(url);
    const clean = await verify(topicId, '--mirror', url, '--json');
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ messages: 5, whole_messages: 3, ok: true });

    await fetch(`${url}/__standin/tamper`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ topicId, sequenceNumber: 3 }),
    });
    const tampered = await verify(topicId, '--mirror', url);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('running-hash-mismatch at 3');
  });

  it('names the mirror it cannot reach and how to point at another', async () => {
    const nowhere = 'http://127.0.0.1:9';
    const tool = await verify('0.0.1001', '--mirror', nowhere);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain(`cannot reach the mirror node at ${nowhere}`);
    const cli = await run(
      'node',
      ['bin/wirestream.mjs', 'verify', '0.0.1001', '--mirror', nowhere],
      {
        cwd: ROOT,
      },
    ).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => e,
    );
    expect({ code: cli.code, stderr: cli.stderr.split('\n')[0] }).toEqual({
      code: 1,
      stderr: expect.stringContaining(`cannot reach the mirror node at ${nowhere}`),
    });
  });
});
