import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WirestreamClient } from '../../src/client';
import { freePort } from '../../tools/lib/wrangler-local.mjs';
import { devServerForFile, tokenFor } from '../support/dev-server';
import { runScript } from '../support/run-script';
import { runInTerminal, screenLines } from '../support/terminal';

/**
 * Issue 33, points 12 and 13: the CLI never succeeds silently and its human
 * output reads well, on a terminal (a real pseudo-terminal) and piped.
 * `--json` stays as it was (client-cli.test.ts holds it).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const SENDER = 'agent:cli-console';
const dev = devServerForFile(SENDER);
const id = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

function env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, WIRESTREAM_URL: dev.server.url, WIRESTREAM_TOKEN: dev.token, ...extra };
}
const cli = (args: string[], input?: string, extra?: Record<string, string | undefined>) =>
  runScript(BIN, args, env(extra), input);
const client = () =>
  new WirestreamClient({ baseUrl: dev.server.url, token: dev.token ?? '', sender: SENDER });

describe('no silent success (issue 33 #12)', () => {
  it('tail of an unknown stream, or past its last Wire, says so and exits 1', async () => {
    const unknown = await cli(['tail', `project:${id('never')}`]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^error: no such stream: project:never-\S+ has no Wires\n$/);

    const stream = `project:${id('head')}`;
    for (let i = 0; i < 3; i++)
      await client().append(stream, { type: 'note.added', payload: { i } });
    const past = await cli(['tail', stream, '--after', '5']);
    expect(past).toMatchObject({ code: 1, stdout: '' });
    expect(past.stderr).toContain(`error: ${stream} ends at #3: there is no #6`);
    const atHead = await cli(['tail', stream, '--after', '3']);
    expect(atHead).toMatchObject({ code: 0, stdout: '' });
    expect(atHead.stderr).toContain('no Wires after #3: that is the last one');
  });

  it('append with no --type and empty stdin says what it expected; nothing is sent', async () => {
    const stream = `project:${id('empty')}`;
    const r = await cli(['append', stream], '\n\n');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'error: append got no Wires on stdin: give --type T [--payload JSON], or JSON lines such as {"type":"review.concern","payload":{"concern":"x"}} on stdin',
    );
    expect(await client().info(stream)).toBeNull();
  });

  it('piped input is checked whole before anything is sent: a bad line 3 appends nothing (exit 2)', async () => {
    const stream = `project:${id('piped')}`;
    const good = '{"type":"note.added","payload":{"n":1}}';
    const cases: [string, string][] = [
      [`${good}\n${good}\n{"payload":{}}\n`, 'error: stdin line 3 has no "type": {"payload":{}}'],
      [`${good}\n${good}\n{oops\n`, 'error: stdin line 3 is not JSON: '],
      [
        `${good}\n\n{"type":"a.b","payload":[1]}\n`,
        'error: stdin line 3: "payload" must be a JSON object',
      ],
    ];
    for (const [input, message] of cases) {
      const r = await cli(['append', stream], input);
      expect({ code: r.code, first: r.stderr.split('\n')[0] }).toEqual({
        code: 2,
        first: expect.stringContaining(message),
      });
    }
    expect(await client().info(stream)).toBeNull();
    const ok = await cli(['append', stream], `${good}\n${good}\n`);
    expect(ok.code).toBe(0);
    expect((await client().info(stream))?.last_seq).toBe(2);
  });

  it('a 403 on the sender suggests --sender with the token subject', async () => {
    const stream = `project:${id('sender')}`;
    const r = await cli([
      'append',
      stream,
      '--type',
      'note.added',
      '--sender',
      'agent:someone-else',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: 403 /);
    expect(r.stderr).toContain(`leave out --sender, or pass --sender ${SENDER}`);
  });

  it('an unreachable server: one short retry line, then the URL and WIRESTREAM_URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const r = await cli(['tail', 'project:x'], undefined, { WIRESTREAM_URL: url });
    console.log(`unreachable server reported after ${Date.now() - started} ms`);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('retrying'))).toEqual([
      `no answer from ${url} (fetch failed); retrying once…`,
    ]);
    expect(lines.at(-1)).toBe(
      `cannot reach the Wirestream server at ${url}: is it running (npm start)? Set WIRESTREAM_URL to its address.`,
    );
  });
});

describe('readable output (issue 33 #13)', () => {
  it('tail: a header, an anchor column, relative times, payloads fitted to 120 columns when piped', async () => {
    const stream = `project:${id('table')}`;
    await client().append(stream, { type: 'note.added', payload: { text: 'x'.repeat(400) } });
    await client().append(stream, { type: 'note.added', payload: { short: true } });
    const r = await cli(['tail', stream]);
    expect(r.code).toBe(0);
    const [header, long, short] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^seq\s+received\s+type\s+sender\s+anchor\s+payload$/);
    expect(long).toMatch(
      new RegExp(
        `^#1\\s+\\d+s ago\\s+note\\.added\\s+${SENDER}\\s+(pending|0\\.0\\.\\d+#\\d+)\\s+\\{"text":"x+…$`,
      ),
    );
    expect(long?.length).toBe(120);
    expect(short).toMatch(/^#2\s.*\{"short":true\}$/);
  });

  it('tail on a 70-column terminal fits every line to 70 columns', async () => {
    const stream = `project:${id('narrow')}`;
    await client().append(stream, { type: 'note.added', payload: { text: 'y'.repeat(300) } });
    const r = await runInTerminal(BIN, ['tail', stream], env(), 70);
    expect(r.code).toBe(0);
    const lines = screenLines(r.output).filter((l) => l.trim() !== '');
    expect(lines[0]).toMatch(/^seq\s+received/);
    expect(lines[1]).toMatch(/^#1\s.*…$/);
    expect(lines.map((l) => l.length)).toEqual([expect.any(Number), 70]);
    expect(lines.every((l) => l.length <= 70)).toBe(true);
  });

  it('append --count piped prints one summary line, not a line per Wire', async () => {
    const stream = `project:${id('count')}`;
    const r = await cli(['append', stream, '--type', 'note.added', '--count', '25']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^appended 25 Wires to ${stream}: #1–#25 in [\\d.]+ s \\(\\d+/s\\)\\n$`),
    );
    expect(r.stderr).toBe('');
  });

  it('append --count on a terminal draws a progress bar with an ETA, then the summary', async () => {
    const stream = `project:${id('tty')}`;
    const r = await runInTerminal(
      BIN,
      ['append', stream, '--type', 'note.added', '--count', '40'],
      env(),
    );
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/append \[[#-]+\] \d+% \d+\/40 \d+\/s eta [\d.]+ s/);
    const lines = screenLines(r.output).filter((l) => l.trim() !== '');
    expect(lines.at(-2)).toMatch(/^append \[#{24}\] 100% 40\/40 \d+\/s$/);
    expect(lines.at(-1)).toMatch(new RegExp(`^appended 40 Wires to ${stream}: #1–#40 in `));
  });

  it('token shows subject, scopes, roles and expiry, one a line', async () => {
    const coordinator = await tokenFor(dev.server, 'coordinator:console', ['coordinator']);
    const r = await cli(['token'], undefined, { WIRESTREAM_TOKEN: coordinator });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'subject  coordinator:console',
      'scopes   append, read, claim',
      'roles    coordinator',
      'streams  all',
    ]);
    expect(lines[4]).toMatch(/^expires {2}\d{4}-\d\d-\d\dT.*Z \(in .+\)$/);
  });

  it('claim keeps quiet about heartbeats unless -v', async () => {
    const coordinator = new WirestreamClient({
      baseUrl: dev.server.url,
      sender: 'coordinator:console',
      token: (await tokenFor(dev.server, 'coordinator:console', ['coordinator'])) ?? '',
    });
    const holdUntilHeartbeats = async (verbose: boolean) => {
      const task = id('hb');
      const stream = `task:${task}:attempt:1`;
      await coordinator.append(stream, {
        type: 'task.available',
        payload: { task_id: task, role: 'developer', attempt: 1 },
      });
      const args = [BIN, 'claim', task, '--role', 'developer', '--lease', '3'];
      const child = spawn(process.execPath, verbose ? [...args, '-v'] : args, { env: env() });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise((r) => child.on('close', r)); // once stdout is all read
      // Two heartbeats on the stream: the first renewal was done before the second was sent.
      let beats = 0;
      for (let i = 0; i < 200 && beats < 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const wires = (await coordinator.read(stream)).wires;
        beats = wires.filter((w) => w.type === 'task.heartbeat').length;
      }
      expect(beats).toBeGreaterThanOrEqual(2);
      // The renewal line follows its heartbeat's receipt: give stdout its turn.
      if (verbose)
        for (let i = 0; i < 50 && !out.includes('renewed'); i++)
          await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      return out;
    };
    const quiet = await holdUntilHeartbeats(false);
    expect(quiet).toMatch(
      /^claimed task:\S+ with fencing token 1\.2, lease until .* \(Ctrl-C releases; -v shows each renewal\)\nreleased\n$/,
    );
    const verbose = await holdUntilHeartbeats(true);
    expect(verbose).toMatch(/\nlease renewed until \S+\n/);
  }, 60_000);
});
