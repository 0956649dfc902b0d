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
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
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
});
