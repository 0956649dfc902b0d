import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { devServerForFile } from '../support/dev-server';
import { runScript, type ScriptRun } from '../support/run-script';

/** Seed 001's bins as `npx wirestream` commands against `wrangler dev`. */

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const dev = devServerForFile('agent:quinn', 120_000);
const WS = `cli-${Date.now().toString(36)}`;

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WIRESTREAM_URL: dev.server.url,
    WIRESTREAM_TOKEN: dev.token ?? '',
    WIRESTREAM_WORKSPACE: WS,
  };
}

const run = (...args: string[]): Promise<ScriptRun> => runScript(BIN, args, env());

const withStdin = (args: string[], input: string): Promise<ScriptRun> =>
  runScript(BIN, args, env(), input);

describe('npx wirestream workspace commands', () => {
  it('resolve, capsule, blackboard and claims mirror the seed bins', async () => {
    expect((await run('symbols', 'set', 'F12', 'src/matching/engine.ts')).code).toBe(0);
    expect((await run('symbols', 'F12')).stdout.trim()).toBe('src/matching/engine.ts');
    expect((await run('symbols', 'reverse', 'src/matching/engine.ts')).stdout.trim()).toBe('F12');
    const clash = await run('symbols', 'set', 'F12', 'other.ts');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('force');
    await run(
      'capsule',
      'write',
      'w1',
      '--what',
      'added LOB engine',
      '--where',
      'F12',
      '--gotcha',
      'seed must be fixed',
    );
    await run(
      'capsule',
      'write',
      'w2',
      '--what',
      'added book diff',
      '--where',
      'F13',
      '--depends',
      'w1',
    );
    await run('capsule', 'write', 'w3', '--what', 'unrelated docs', '--where', 'README');
    expect((await run('capsule', 'deps', 'w2')).stdout.trim().split('\n')).toEqual(['w1', 'w2']);
    const hydrated = await run('capsule', 'hydrate', 'w2', '--json');
    expect((JSON.parse(hydrated.stdout) as { id: string }[]).map((c) => c.id)).toEqual([
      'w1',
      'w2',
    ]);
    await run('blackboard', 'set', 'dev_port', '5173');
    expect((await run('blackboard', 'get', 'dev_port')).stdout.trim()).toBe('5173');

    const made = await run(
      'claims',
      'make',
      '--surfaces',
      'src/a/**',
      '--task',
      'T-9',
      '--haid',
      'agent:quinn/cursor',
      '--json',
    );
    expect(made.code).toBe(0);
    const claim = (JSON.parse(made.stdout) as { claim: Record<string, string> }).claim;
    expect(claim.task_ref).toBe('T-9@agent:quinn/cursor');
    const listed = JSON.parse((await run('claims', 'list', '--json')).stdout) as { count: number };
    expect(listed.count).toBe(1);
    expect((await run('claims', 'release', '--haid', 'agent:quinn/cursor')).stdout.trim()).toBe(
      claim.claim_id,
    );
    const log = await run('log', '5');
    expect(log.stdout).toMatch(/\tclaims\trelease\t/);
    expect((await run('capsule', 'write')).code).toBe(2);
  }, 120_000);

  it('validate reads JSON lines: accept and reject; --on-receipt retries once then escalates', async () => {
    const good =
      '{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}';
    const plain = await withStdin(['validate'], `${good}\n`);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toBe('{"valid":true,"errors":[]}');
    const bad = '{"type":"task_result","from":"coder","msg_id":"m2","task":"3.2","status":"done"}';
    const onReceipt = await withStdin(['validate', '--on-receipt'], `${good}\n${bad}\n${bad}\n`);
    expect(onReceipt.code).toBe(1);
    expect(onReceipt.stderr).toContain('escalated');
    const lines = onReceipt.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.valid, l.attempt ?? null])).toEqual([
      [true, null],
      [false, 1],
      [false, 2],
    ]);
  }, 60_000);

  it('ledger and brief build count tokens with gpt-tokenizer; the demo prints the measured delta', async () => {
    const brief = await run(
      'brief',
      'build',
      '--task',
      '3.2',
      '--spec',
      'implement book diff',
      '--symbols',
      'F12',
      '--capsules',
      'w2',
      '--invariants',
      'INVARIANTS.md',
      '--json',
    );
    expect(brief.code).toBe(0);
    const built = JSON.parse(brief.stdout) as { tokens: number; tokens_estimated: boolean };
    expect(built.tokens_estimated).toBe(false);
    expect(built.tokens).toBeGreaterThan(10);
    const demo = await runScript(BIN, ['demo', '--workspace', `${WS}-demo`], env());
    expect(demo.code).toBe(0);
    const out = demo.stdout.trim().split('\n');
    expect(out[0]).toMatch(
      /^v1 orchestration \(briefing 3 spawns, verbatim\): \d+ tokens \(baseline\)$/,
    );
    expect(out[1]).toMatch(
      /^v2 orchestration \(symbol table \+ 3 delta briefs \+ 3 typed results\): \d+ tokens$/,
    );
    expect(out[2]).toMatch(
      /^measured delta: orchestration: (\d+) -> (\d+) tokens \(v1 baseline -> measured; -\d+%\)$/,
    );
    console.log(demo.stdout);
    const delta = await run(
      'ledger',
      'delta',
      '--role',
      'orchestration',
      '--workspace',
      `${WS}-demo`,
    );
    expect(`measured delta: ${delta.stdout.trim()}`).toBe(out[2]);
  }, 120_000);
});
