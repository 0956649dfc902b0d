import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript, type ScriptRun, startScript } from '../support/run-script';

/** Seed 004's bash loops and hook as `npx wirestream events|hook`, against `wrangler dev`. */

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
let server: DevServer;
const tokens: Record<string, string> = {};
const PROJECT = `cli-${Date.now().toString(36)}`;

beforeAll(async () => {
  server = await startDevServer();
  for (const sub of ['agent:exec-1', 'agent:exec-2', 'agent:exec-3', 'agent:claude']) {
    tokens[sub] = (await tokenFor(server, sub)) ?? '';
  }
  tokens['coordinator:orch'] = (await tokenFor(server, 'coordinator:orch', ['coordinator'])) ?? '';
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function env(sub: string, url = server.url): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WIRESTREAM_URL: url,
    WIRESTREAM_TOKEN: tokens[sub],
    WIRESTREAM_PROJECT: PROJECT,
  };
}

const cli = (sub: string, args: string[], input?: string): Promise<ScriptRun> =>
  runScript(BIN, args, env(sub), input);

/** `events emit --project <project> …flags` as `sub`. */
const emitAs = (sub: string, project: string, ...flags: string[]) =>
  cli(sub, ['events', 'emit', '--project', project, ...flags]);

const lines = (run: ScriptRun) =>
  run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('wirestream events emit|tail|wait', () => {
  it('emits from flags and from JSON on stdin; tail shows them in the seed vocabulary', async () => {
    const project = `${PROJECT}-emit`;
    const flags = await emitAs(
      'agent:exec-1',
      project,
      '--type',
      'task:started',
      '--plan',
      '01-01',
      '--task',
      '1',
      '--data',
      '{"taskName":"Create User model"}',
      '--json',
    );
    expect(flags.stderr).toBe('');
    expect(flags.code).toBe(0);
    expect(lines(flags)[0]).toMatchObject({ lastEventId: 1 });
    const seedEvent = {
      type: 'artifact:created',
      path: 'src/models/user.ts',
      provides: ['User', 'UserCreate', 'UserUpdate'],
      createdBy: '01-01',
      timestamp: '2024-01-15T10:35:00Z',
    };
    const stdin = await cli(
      'agent:exec-1',
      ['events', 'emit', '--project', project, '--json'],
      JSON.stringify(seedEvent),
    );
    expect(stdin.code).toBe(0);
    expect(lines(stdin)[0]).toMatchObject({ events: [{ id: 2 }], lastEventId: 2 });

    const tail = await cli('agent:exec-1', ['events', 'tail', '--project', project, '--json']);
    expect(tail.code).toBe(0);
    const events = lines(tail);
    expect(events[0]).toMatchObject({
      type: 'task:started',
      plan: '01-01',
      task: 1,
      taskName: 'Create User model',
      id: 1,
    });
    expect(events[1]).toEqual({ ...seedEvent, id: 2 });
    const human = await cli('agent:exec-1', [
      'events',
      'tail',
      '--project',
      project,
      '--type',
      'artifact:created',
    ]);
    expect(human.stdout).toContain('#2\tartifact:created');
    expect(human.stdout).not.toContain('task:started');
  });

  it('refuses a malformed event with the server’s problem, exit 1', async () => {
    const bad = await cli(
      'agent:exec-1',
      ['events', 'emit', '--project', `${PROJECT}-bad`, '--json'],
      JSON.stringify({ type: 'started', plan: '01-01' }),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('type');
    expect(lines(bad)[0]).toMatchObject({ status: 422 });
    const usage = await cli('agent:exec-1', ['events', 'wait', '--project', PROJECT]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--type');
  });

  it("runs the seed's orchestrator: wait returns when all 3 executors completed", async () => {
    const project = `${PROJECT}-orch`;
    const args = (...more: string[]) => ['events', ...more, '--project', project];
    const phase01 = (count: string) => [
      ...args('wait'),
      '--type',
      'task:completed',
      '--plan-prefix',
      '01-',
      '--count',
      count,
    ];
    const waiting = startScript(BIN, [...phase01('3'), '--json'], env('coordinator:orch'));
    // Another phase's completion does not count.
    const other = await cli('agent:exec-1', [
      ...args('emit'),
      ...['--type', 'task:completed', '--plan', '02-01', '--task', '1'],
    ]);
    expect(other.code, other.stderr).toBe(0);
    const executor = async (n: number) => {
      const plan = `01-0${n}`;
      const sub = `agent:exec-${n}`;
      for (const type of ['task:started', 'task:completed']) {
        const r = await cli(sub, [...args('emit'), '--type', type, '--plan', plan, '--task', '1']);
        expect(r.code, r.stderr).toBe(0);
      }
    };
    await Promise.all([1, 2, 3].map(executor));
    const done = await waiting.done;
    expect(done.code, done.stderr).toBe(0);
    const answer = lines(done)[0] as { events: { plan: string; type: string }[]; met: boolean };
    expect(answer.met).toBe(true);
    expect(answer.events.map((e) => e.plan).sort()).toEqual(['01-01', '01-02', '01-03']);
    expect(answer.events.every((e) => e.type === 'task:completed')).toBe(true);

    // A wait that cannot be met ends at its timeout with what matched, exit 3.
    const short = await cli('coordinator:orch', [...phase01('4'), '--timeout', '1']);
    expect(short.code).toBe(3);
    expect(short.stdout).toContain('3/4 task:completed (timed out)');
  });

  it('tail --follow prints each new matching event as it is appended', async () => {
    const project = `${PROJECT}-follow`;
    const follow = startScript(
      BIN,
      ['events', 'tail', '--project', project, '--type', 'task:failed', '--follow', '--json'],
      env('agent:exec-2'),
    );
    try {
      const started = await emitAs(
        'agent:exec-2',
        project,
        '--type',
        'task:started',
        '--plan',
        '01-02',
        '--task',
        '1',
      );
      expect(started.code, started.stderr).toBe(0);
      const failed = await emitAs(
        'agent:exec-2',
        project,
        '--type',
        'task:failed',
        '--plan',
        '01-02',
        '--task',
        '1',
        '--data',
        '{"error":"Test verification failed"}',
      );
      expect(failed.code).toBe(0);
      const seen = await new Promise<string>((resolve) => {
        const check = () => {
          if (follow.stdout().includes('\n')) resolve(follow.stdout());
        };
        follow.child.stdout.on('data', check);
        check();
      });
      expect(JSON.parse(seen.split('\n')[0] ?? '')).toMatchObject({
        type: 'task:failed',
        error: 'Test verification failed',
        id: 2,
      });
    } finally {
      follow.child.kill('SIGINT');
      expect((await follow.done).code).toBe(0);
    }
  });
});

describe('wirestream hook (Claude Code PostToolUse)', () => {
  const hookInput = (tool: string, file: string, more: Record<string, unknown> = {}) =>
    JSON.stringify({
      session_id: 's1',
      hook_event_name: 'PostToolUse',
      cwd: '/home/dev/auth-service',
      tool_name: tool,
      tool_input: { file_path: file, content: 'export interface User {}' },
      tool_response: { filePath: file, success: true },
      ...more,
    });

  it('emits artifact:created after Write and artifact:modified after Edit, as the seed hook does', async () => {
    const project = `${PROJECT}-hook`;
    const write = await cli(
      'agent:claude',
      ['hook', '--project', project],
      hookInput('Write', '/home/dev/auth-service/src/models/user.ts', { tool_use_id: 'toolu_01' }),
    );
    expect(write).toMatchObject({ code: 0, stderr: '' });
    // The same tool call delivered twice (a retried hook) is one event, and
    // the second delivery says nothing, though its timestamp is a second later.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await cli(
      'agent:claude',
      ['hook', '--project', project],
      hookInput('Write', '/home/dev/auth-service/src/models/user.ts', { tool_use_id: 'toolu_01' }),
    );
    expect(again).toMatchObject({ code: 0, stderr: '' });
    const edit = await cli(
      'agent:claude',
      ['hook', '--project', project, '--plan', '01-02'],
      hookInput('Edit', 'src/models/user.ts'),
    );
    expect(edit.code).toBe(0);
    const read = await cli(
      'agent:claude',
      ['hook', '--project', project],
      hookInput('Read', 'x.ts'),
    );
    expect(read).toMatchObject({ code: 0, stderr: '' });

    const tail = lines(
      await cli('agent:claude', ['events', 'tail', '--project', project, '--json']),
    );
    expect(tail).toHaveLength(2);
    expect(tail[0]).toEqual({
      type: 'artifact:created',
      path: 'src/models/user.ts',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      id: 1,
    });
    expect(tail[1]).toMatchObject({
      type: 'artifact:modified',
      path: 'src/models/user.ts',
      modifiedBy: '01-02',
      id: 2,
    });
  });

  it('never fails the tool call: server down or hanging → exit 0 and a warning', async () => {
    const input = hookInput('Write', 'src/a.ts');
    const hanging: Server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const port = (hanging.address() as AddressInfo).port;
    try {
      const slow = await runScript(
        BIN,
        ['hook', '--timeout-ms', '500'],
        env('agent:claude', `http://127.0.0.1:${port}`),
        input,
      );
      expect(slow.code).toBe(0);
      expect(slow.stderr).toContain('artifact:created src/a.ts not sent');
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
    const down = await runScript(
      BIN,
      ['hook'],
      env('agent:claude', `http://127.0.0.1:${port}`),
      input,
    );
    expect(down.code).toBe(0);
    expect(down.stderr).toContain('the tool call is not affected');
    const garbage = await cli('agent:claude', ['hook'], 'not json');
    expect(garbage.code).toBe(0);
    expect(garbage.stderr).toContain("stdin is not the hook's JSON");
  });
});
