import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/spec-index';
import { runScript } from '../support/run-script';

/**
 * Issue 33, point 11: every command explains itself (`<cmd> --help`,
 * `help <cmd>`, `--version`), and a mistyped or misplaced option is refused
 * with a clean message, never ignored. No server needed: nothing is sent.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
// Pointing nowhere: a command that tried the network would fail differently.
const ENV = { ...process.env, WIRESTREAM_URL: 'http://127.0.0.1:9', WIRESTREAM_TOKEN: '' };
const cli = (args: string[]) => runScript(BIN, args, ENV);

/** Each command line is exit 2, its first stderr line holding the message, a pointer to the help, nothing on stdout. */
async function expectRefused(cases: [string[], string][]): Promise<void> {
  for (const [args, message] of cases) {
    const r = await cli(args);
    expect({ args, code: r.code, first: r.stderr.split('\n')[0], stdout: r.stdout }).toEqual({
      args,
      code: 2,
      first: expect.stringContaining(message),
      stdout: '',
    });
    expect(r.stderr).toMatch(/\nsee wirestream (help|\w+ --help)\n/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }
}

describe('wirestream help', () => {
  it('every command has a help page with a description and an example, as --help and as help <cmd>', async () => {
    expect(COMMAND_SPECS.map((s) => s.name)).toEqual(
      expect.arrayContaining(['append', 'tail', 'claim', 'verify', 'token', 'mcp', 'run']),
    );
    for (const spec of COMMAND_SPECS) {
      const page = await cli([spec.name, '--help']);
      expect({ command: spec.name, code: page.code, stderr: page.stderr }).toEqual({
        command: spec.name,
        code: 0,
        stderr: '',
      });
      const lines = page.stdout.split('\n');
      expect(lines[0]).toMatch(new RegExp(`^usage: wirestream ${spec.name}\\b`));
      expect(lines[2]).toBe(spec.summary);
      const example = lines.indexOf(lines.find((l) => /^examples?:$/.test(l)) ?? '');
      expect(example, `${spec.name} --help has an example`).toBeGreaterThan(0);
      expect(lines[example + 1]).toMatch(/wirestream /);
      expect(page.stdout).toContain('--json');
      const viaHelp = await cli(['help', spec.name]);
      expect(viaHelp).toEqual(page);
    }
  }, 120_000);

  it('help and --help list every command with its summary; --version prints the version; -h works too', async () => {
    const overview = await cli(['help']);
    expect(overview.code).toBe(0);
    for (const spec of COMMAND_SPECS) expect(overview.stdout).toContain(`  ${spec.name}`);
    expect(await cli(['--help'])).toEqual(overview);
    const short = await cli(['tail', '-h']);
    expect(short.code).toBe(0);
    expect(short.stdout).toMatch(/^usage: wirestream tail <stream>/);
    const version = await cli(['--version']);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toEqual({ code: 0, stdout: `wirestream ${pkg.version}\n`, stderr: '' });
  });

  it('a mistyped option or command gets "did you mean", exit 2, no stack trace', async () => {
    const cases: [string[], string][] = [
      [
        ['tail', 'project:x', '--folow'],
        'error: unknown option --folow for tail; did you mean --follow?',
      ],
      [['append', 'project:x', '--tpye', 'a.b'], 'did you mean --type?'],
      [['claim', 't1', '--roel', 'dev'], 'did you mean --role?'],
      [['tial', 'project:x'], 'error: unknown command "tial"; did you mean tail?'],
      [['help', 'apend'], 'error: unknown command "apend"; did you mean append?'],
      [['events', 'tail', '--plan-prefx', '01-'], 'did you mean --plan-prefix?'],
      [['append', 'project:x', '--bogus'], 'error: unknown option --bogus for append'],
    ];
    await expectRefused(cases);
  }, 60_000);

  it("another command's option is refused naming the option and the command, not ignored", async () => {
    const cases: [string[], string][] = [
      [['tail', 'project:x', '--lease', '5'], 'error: --lease is an option of claim, not of tail'],
      [
        ['append', 'project:x', '--type', 'a.b', '--follow'],
        '--follow is an option of tail, events, not of append',
      ],
      [['token', '--mirror', 'http://m'], '--mirror is an option of verify, keys, not of token'],
      [['verify', '0.0.1', '-f'], '-f is an option of tail, events, not of verify'],
      [
        ['symbols', 'list', '--project', 'p'],
        '--project is an option of events, hook, not of symbols',
      ],
      [['events', 'tail', '--workspace', 'w'], '--workspace is an option of symbols'],
    ];
    await expectRefused(cases);
  }, 60_000);
});
