import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/run-script';

/**
 * `wirestream verify` refuses what it cannot check, naming what is wrong: a
 * mistaken command line is exit 2 (nothing fetched), a proof that is not a
 * log proof is exit 1 naming its field. No server and no mirror are needed:
 * both point nowhere, and nothing here may reach them.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const ENV = {
  ...process.env,
  WIRESTREAM_URL: 'http://127.0.0.1:9',
  WIRESTREAM_MIRROR_URL: 'http://127.0.0.1:9',
  WIRESTREAM_TOKEN: '',
};
const cli = (args: string[]) => runScript(BIN, args, ENV);
const dir = mkdtempSync(path.join(tmpdir(), 'verify-input-'));
const file = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

describe('wirestream verify, bad input', () => {
  it('refuses a mistaken command line with exit 2 and the reason', async () => {
    const cases: [string[], string][] = [
      [['verify'], 'missing argument: wirestream verify <topic>'],
      [['verify', 'project:x'], '<topic> is an HCS topic id like 0.0.1001, got "project:x"'],
      [['verify', '0.0.1', '--key', 'k+1+AA=='], '--key goes with --log or --proof'],
      [['verify', '0.0.1', '--proof', 'w1'], 'verify --proof takes no topic'],
      [['verify', '--proof', 'a b'], '--proof takes a file or a wire_id; "a b" is neither'],
      [['verify', '--proof', file('bad.json', '{"mode":')], 'is not JSON'],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr.split('\n')[0]).toContain(message);
    }
  }, 60_000);

  it('names the field of a log proof that is missing or malformed (exit 1)', async () => {
    const proof = {
      mode: 'log',
      wire_id: 'w1',
      stream_id: 'project:x',
      stream_seq: 1,
      leaf: '{}',
      leaf_index: 0,
      tree_size: 1,
      inclusion_path: 'not a list',
      checkpoint: '',
      verifier_key: '',
      checkpoint_anchor: {},
    };
    const r = await cli(['verify', '--proof', file('proof.json', JSON.stringify(proof)), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      problem: { check: 'proof', reason: 'inclusion_path is missing or malformed' },
    });
    const anchorless = { ...proof, inclusion_path: [] };
    const again = await cli(['verify', '--proof', file('p2.json', JSON.stringify(anchorless))]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(
      'FAILED proof: checkpoint_anchor.hcs_topic_id is missing or malformed',
    );
  }, 60_000);
});
