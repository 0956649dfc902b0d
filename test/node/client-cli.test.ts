import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WirestreamClient, WirestreamError } from '../../src/client';
import { devServerForFile, tokenFor } from '../support/dev-server';
import { withFixedAnswer } from '../support/fixed-answer-server';
import { runScript, type ScriptRun } from '../support/run-script';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const SENDER = 'agent:cli-test';
const dev = devServerForFile(SENDER, 120_000);

function env(): NodeJS.ProcessEnv {
  return { ...process.env, WIRESTREAM_URL: dev.server.url, WIRESTREAM_TOKEN: dev.token ?? '' };
}

/** Runs the CLI to completion. */
function run(args: string[]): Promise<ScriptRun> {
  return runScript(BIN, args, env());
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function until(check: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npx wirestream', () => {
  it('tail --follow prints Wires appended by another process, live and in order', async () => {
    const stream = `project:cli-${Date.now().toString(36)}`;
    const tail: ChildProcess = spawn(
      process.execPath,
      [BIN, 'tail', stream, '--follow', '--json'],
      {
        env: env(),
      },
    );
    let out = '';
    let err = '';
    tail.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    tail.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    await until(
      () => err.includes('following live'),
      20_000,
      () => err,
    );

    const appended = await run([
      'append',
      stream,
      '--type',
      'review.concern',
      '--payload',
      '{"concern":"from another process"}',
      '--count',
      '15',
      '--json',
    ]);
    expect(appended.code).toBe(0);
    const receipts = jsonLines(appended.stdout);
    expect(receipts.map((r) => r.stream_seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));

    await until(
      () => jsonLines(out).length >= 15,
      10_000,
      () => out,
    );
    tail.kill('SIGINT');
    const code = await new Promise((r) => tail.on('exit', r));
    const wires = jsonLines(out);
    expect(code).toBe(0);
    expect(wires.map((w) => w.stream_seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(wires.map((w) => w.wire_id)).toEqual(receipts.map((r) => r.wire_id));
    expect(wires.every((w) => w.sender === SENDER)).toBe(true);

    const once = await run(['tail', stream, '--after', '10']);
    expect(once.code).toBe(0);
    const [header, ...rows] = once.stdout.trim().split('\n');
    expect(header).toMatch(/^seq\s+received\s+type\s+sender\s+anchor\s+payload$/);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(['#11', '#12', '#13', '#14', '#15']);
  }, 90_000);

  it('claim holds a task lease until Ctrl-C, which releases it', async () => {
    const coordinatorToken = await tokenFor(dev.server, 'coordinator:cli', ['coordinator']);
    const coordinator = new WirestreamClient({
      baseUrl: dev.server.url,
      sender: 'coordinator:cli',
      token: coordinatorToken ?? '',
    });
    const taskId = `cli${Date.now().toString(36)}`;
    await coordinator.append(`task:${taskId}:attempt:1`, {
      type: 'task.available',
      payload: { task_id: taskId, role: 'developer', attempt: 1 },
    });
    const child = spawn(process.execPath, [BIN, 'claim', taskId, '--role', 'developer', '--json'], {
      env: env(),
    });
    let out = '';
    let interrupted = false;
    const exited = new Promise((r) => child.on('exit', r));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Ctrl-C the instant the line shows, as a quick user would: the lease
      // must still be released.
      if (!interrupted && out.includes('"claimed"')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    await until(
      () => interrupted,
      20_000,
      () => out,
    );
    const code = await exited;
    expect(jsonLines(out)[0]).toMatchObject({ kind: 'claimed', fencing_token: '1.2' });
    expect(code).toBe(0);
    expect(jsonLines(out).at(-1)).toEqual({ kind: 'released' });
    const types = (await coordinator.read(`task:${taskId}:attempt:1`)).wires.map((w) => w.type);
    expect(types.slice(0, 3)).toEqual(['task.available', 'task.claim', 'task.released']);
  }, 60_000);

  it('token shows who the current token is, and mints one with the admin secret', async () => {
    const who = await run(['token']);
    expect(who.code).toBe(0);
    expect(who.stdout).toMatch(
      /^subject {2}agent:cli-test\nscopes {3}append, read, claim\nroles {4}developer\n/,
    );

    const minted = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [BIN, 'token', '--sub', 'human:ana', '--scopes', 'read', '--json'],
        { env: { ...env(), WIRESTREAM_TOKEN: dev.server.adminToken } },
      );
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout }));
    });
    expect(minted.code).toBe(0);
    const body = JSON.parse(minted.stdout) as { token: string; sub: string; scopes: string[] };
    expect(body).toMatchObject({ sub: 'human:ana', scopes: ['read'] });
    const reader = new WirestreamClient({ baseUrl: dev.server.url, token: body.token });
    await expect(reader.read('project:anything')).resolves.toMatchObject({ wires: [] });
  }, 60_000);

  it('append with the admin secret sends as human:admin, the subject the server gives it', async () => {
    const task = `0.0.${Date.now() % 1_000_000}`;
    const stream = `task:${task}:attempt:1`;
    const payload = JSON.stringify({ task_id: task, role: 'developer' });
    const sent = await runScript(
      BIN,
      ['append', stream, '--type', 'task.available', '--payload', payload],
      { ...env(), WIRESTREAM_TOKEN: dev.server.adminToken },
    );
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
    const reader = new WirestreamClient({ baseUrl: dev.server.url, token: dev.server.adminToken });
    const { wires } = await reader.read(stream);
    expect(wires.map((w) => [w.type, w.sender])).toEqual([['task.available', 'human:admin']]);
  }, 60_000);

  it('verify recomputes the running-hash chain from the mirror and catches a tampered message', async () => {
    const stream = `project:verify-${Date.now().toString(36)}`;
    const client = new WirestreamClient({
      baseUrl: dev.server.url,
      token: dev.token ?? '',
      sender: SENDER,
    });
    for (let i = 0; i < 5; i++) {
      await client.append(stream, { type: 'review.concern', payload: { concern: `v${i}` } });
    }
    let topic = '';
    for (let i = 0; i < 300 && !topic; i++) {
      const page = await client.read(stream);
      const last = page.wires.at(-1)?.anchor;
      if (last?.status === 'anchored' && last.hcs_topic_id) topic = last.hcs_topic_id;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(topic).toMatch(/^0\.0\.\d+$/);

    // One Wire's proof: its message and running hash check out against the mirror.
    const first = (await client.read(stream)).wires[0];
    const proof = await client.proof(first?.wire_id ?? '');
    expect(proof).toMatchObject({ wire_id: first?.wire_id, hcs_topic_id: topic });
    expect(await client.checkProof(proof)).toMatchObject({ ok: true });

    const good = await run(['verify', topic, '--mirror', dev.server.standin.url]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(new RegExp(`^ok: \\d+ messages of ${topic.replace(/\./g, '\\.')}`));
    // The same Wire's proof, fetched by wire_id and checked by the CLI (envelope mode).
    const wireArgs = [
      'verify',
      '--proof',
      first?.wire_id ?? '',
      '--mirror',
      dev.server.standin.url,
    ];
    const proofOk = await run(wireArgs);
    expect([proofOk.code, proofOk.stdout]).toEqual([
      0,
      `ok: Wire ${first?.wire_id} is message ${topic}#${proof.hcs_sequence_number}, its running hash follows\n`,
    ]);

    // A proof is about the Wire it names: the first Wire's proof relabelled as the
    // second's (its message still on HCS) fails, and so does a server answering a
    // proof of another Wire than the one asked for.
    const second = (await client.read(stream)).wires[1]?.wire_id ?? '';
    const relabelled = { ...proof, wire_id: second };
    const otherWire = `the proof's message is Wire ${JSON.stringify(first?.wire_id)}, not ${JSON.stringify(second)}`;
    expect(await client.checkProof(relabelled)).toMatchObject({ ok: false, reason: otherWire });
    const dir = mkdtempSync(path.join(tmpdir(), 'proof-'));
    writeFileSync(path.join(dir, 'relabelled.json'), JSON.stringify(relabelled));
    const relabelledRun = await run([
      'verify',
      '--proof',
      path.join(dir, 'relabelled.json'),
      '--mirror',
      dev.server.standin.url,
    ]);
    expect([relabelledRun.code, relabelledRun.stdout]).toEqual([1, `FAILED: ${otherWire}\n`]);
    const asked = await withFixedAnswer(proof, (url) =>
      runScript(BIN, ['verify', '--proof', second, '--mirror', dev.server.standin.url], {
        ...env(),
        WIRESTREAM_URL: url,
      }),
    );
    expect([asked.code, asked.stdout]).toEqual([
      1,
      `FAILED: the API answered a proof of Wire ${JSON.stringify(first?.wire_id)}, not of ${second}\n`,
    ]);

    // The mirror now serves a wrong running hash for that Wire's message.
    const n = proof.hcs_sequence_number;
    await fetch(`${dev.server.standin.url}/__standin/tamper`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ topicId: topic, sequenceNumber: n }),
    });
    expect(await client.checkProof(proof)).toMatchObject({ ok: false });
    const proofBad = await run(wireArgs);
    expect([proofBad.code, proofBad.stdout]).toEqual([
      1,
      'FAILED: the running hash does not match the recomputed one\n',
    ]);
    const bad = await run(['verify', topic, '--mirror', dev.server.standin.url, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      checked: n - 1,
      problem: { sequence_number: n },
    });
  }, 90_000);

  it('proof(id, { waitMs }) waits for the Wire to be anchored; an unknown id is not-found once the wait is over', async () => {
    const client = new WirestreamClient({
      baseUrl: dev.server.url,
      token: dev.token ?? '',
      sender: SENDER,
    });
    const stream = `project:proof-wait-${Date.now().toString(36)}`;
    const { receipt } = await client.append(stream, {
      type: 'review.concern',
      payload: { concern: 'proof at once' },
    });
    // Asked at once, a fresh Wire is not anchored yet; with a wait the proof comes.
    const proof = await client.proof(receipt.wire_id, { waitMs: 20_000 });
    expect(proof).toMatchObject({ wire_id: receipt.wire_id, stream_id: stream, stream_seq: 1 });
    expect(proof.hcs_sequence_number).toBeGreaterThan(0);
    expect(await client.checkProof(proof)).toMatchObject({ ok: true });
    // The same hand-picked wire_id on another stream: the bare id is ambiguous,
    // and streamId picks each one.
    const other = `project:proof-other-${Date.now().toString(36)}`;
    await client.append(other, {
      wire_id: receipt.wire_id,
      type: 'review.concern',
      payload: { concern: 'same id elsewhere' },
    });
    const mine = await client.proof(receipt.wire_id, { waitMs: 20_000, streamId: stream });
    expect(mine).toMatchObject({
      stream_id: stream,
      hcs_sequence_number: proof.hcs_sequence_number,
    });
    const theirs = await client.proof(receipt.wire_id, { waitMs: 20_000, streamId: other });
    expect(theirs).toMatchObject({ stream_id: other });
    expect(JSON.parse(theirs.message)).toMatchObject({ payload: { concern: 'same id elsewhere' } });
    const ambiguous = await client.proof(receipt.wire_id).catch((e) => e);
    expect(ambiguous).toMatchObject({ code: 'ambiguous-wire-id', status: 409 });
    expect(ambiguous.problem.stream_ids).toEqual([stream, other].sort());

    const started = Date.now();
    const error = await client.proof('wire_never_appended', { waitMs: 600 }).catch((e) => e);
    expect(error).toBeInstanceOf(WirestreamError);
    expect(error).toMatchObject({ code: 'not-found', status: 404 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  }, 60_000);

  it('refuses a mistaken command line with exit code 2 and the rule, appending nothing', async () => {
    const stream = `project:cli-usage-${Date.now().toString(36)}`;
    const cases: [string[], string][] = [
      [['append', stream, '--bogus'], 'error: unknown option --bogus for append'],
      [['append', stream, '--type'], "error: Option '--type <value>' argument missing"],
      [
        ['append', stream, '--type', 'a.b', '--count', '0'],
        'error: --count must be an integer ≥ 1, got "0"',
      ],
      [['append', stream, '--type', 'a.b', '--payload', '{oops'], 'error: --payload is not JSON: '],
      [
        ['append', stream, '--type', 'a.b', '--payload', '[1]'],
        'error: --payload must be a JSON object',
      ],
      [['tail', stream, '--after', 'x'], 'error: --after must be an integer ≥ 0, got "x"'],
      [
        ['claim', 'cli-usage', '--role', 'dev', '--lease', 'soon'],
        'error: --lease must be an integer ≥ 1, got "soon"',
      ],
      [
        ['token', '--sub', 'agent:x', '--expires-in', '1d'],
        'error: --expires-in must be an integer ≥ 1, got "1d"',
      ],
      [['append'], 'error: missing argument: wirestream append <stream>'],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect({ args, code: result.code, stderr: result.stderr.split('\n')[0] }).toEqual({
        args,
        code: 2,
        stderr: expect.stringContaining(message),
      });
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(
      await new WirestreamClient({ baseUrl: dev.server.url, token: dev.token ?? '' }).info(stream),
    ).toBeNull();
  }, 60_000);
});
