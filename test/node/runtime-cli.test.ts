import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { devServerForFile } from '../support/dev-server';
import { runScript, type ScriptRun, startScript } from '../support/run-script';

/**
 * Seed 003 from a shell, against `wrangler dev`: `wirestream runtime …` for
 * the channel and worker sides, and `examples/runtime-worker.mjs` taking
 * messages the channel's policy routes to it until it completes.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const EXAMPLE = path.join(ROOT, 'examples/runtime-worker.mjs');
const CHANNEL = `cli-${Date.now().toString(36)}`;
const dev = devServerForFile('agent:runtime-cli');

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  WIRESTREAM_URL: dev.server.url,
  WIRESTREAM_TOKEN: dev.token,
  TOKEN: dev.token,
});
const cli = (...args: string[]): Promise<ScriptRun> => runScript(BIN, ['runtime', ...args], env());
const json = (run: ScriptRun) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

const POLICY = (worker: string) =>
  JSON.stringify({
    rules: [
      {
        id: 'research',
        when: { textIncludes: ['investigate'] },
        route: { action: 'spawn_branch' },
      },
      {
        id: 'ask',
        when: { textStartsWith: 'ask' },
        route: { action: 'route_worker', workerId: worker },
      },
    ],
    default: { action: 'respond' },
  });

describe('wirestream runtime', () => {
  it('opens a channel, says, follows its route decision, and runs a worker through its lifecycle', async () => {
    const [opened] = json(
      await cli('open', CHANNEL, '--policy', POLICY('w-none'), '--budget', '4000', '--json'),
    );
    expect(opened).toMatchObject({ channelId: CHANNEL, opened: true, contextBudget: 4000 });

    const follow = startScript(
      BIN,
      ['runtime', 'follow', 'channel', CHANNEL, '--until', 'channel.route.decided', '--json'],
      env(),
    );
    const [said] = json(
      await cli('say', CHANNEL, 'investigate', 'the', 'login', 'errors', '--json'),
    );
    expect(said).toHaveProperty('stream_seq');
    const followed = json(await follow.done).map((w) => [w.type, w.payload]);
    expect(followed.at(-1)).toEqual([
      'runtime.channel.route.decided',
      expect.objectContaining({ rule: 'research', action: 'spawn_branch' }),
    ]);

    const w = `${CHANNEL}-w`;
    const [spawned] = json(
      await cli(
        'spawn',
        w,
        '--channel',
        CHANNEL,
        '--goal',
        'triage',
        '--toolset',
        'logs,shell',
        '--mode',
        'interactive',
        '--json',
      ),
    );
    expect(spawned).toMatchObject({
      status: 'spawned',
      mode: 'interactive',
      toolset: ['logs', 'shell'],
    });
    json(await cli('progress', w, '--status', 'waiting', '--note', 'ready', '--json'));
    json(await cli('say', CHANNEL, 'look', 'at', 'eu-west', '--to', w, '--json'));
    const feed = json(
      await runScript(
        BIN,
        ['runtime', 'follow', 'worker', w, '--until', 'channel.message.received', '--json'],
        env(),
      ),
    );
    expect(feed.at(-1)).toMatchObject({
      payload: expect.objectContaining({ text: 'look at eu-west' }),
    });
    json(await cli('complete', w, '--summary', 'stale cache', '--tokens', '900,80', '--json'));
    const [state] = json(await cli('worker-state', w, '--json'));
    expect(state).toMatchObject({
      status: 'completed',
      report: { summary: 'stale cache', outcome: 'success' },
    });
    // Replayed after the fact, the whole history comes in one batch: the
    // follow still ends at the first match, not at the end of that batch.
    const replay = json(
      await runScript(
        BIN,
        ['runtime', 'follow', 'worker', w, '--until', 'channel.message.received', '--json'],
        env(),
      ),
    );
    expect(replay.map((wire) => wire.type).at(-1)).toBe('runtime.channel.message.received');
    const [channel] = json(await cli('state', CHANNEL, '--json'));
    expect(channel).toMatchObject({ workers: { [w]: { status: 'completed' } } });
  }, 90_000);

  it('refuses a mistaken command line with exit 2 naming the flag, and a server refusal with exit 1', async () => {
    const unknown = await cli('nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown runtime command "nope"');
    const bad = await cli('progress', 'w-x', '--channel', CHANNEL, '--status', 'sleeping');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status must be one of running|waiting, got "sleeping"');
    const tokens = await cli(
      'complete',
      'w-x',
      '--channel',
      CHANNEL,
      '--summary',
      's',
      '--tokens',
      '5',
    );
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toContain('--tokens must be IN,OUT');
    const refused = await cli('progress', `${CHANNEL}-w`, '--status', 'running', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout.trim())).toMatchObject({ status: 409 });
  }, 60_000);
});

describe('examples/runtime-worker.mjs', () => {
  it('takes the messages the channel policy routes to it and completes', async () => {
    const channel = `${CHANNEL}-ex`;
    const worker = `${channel}-example`;
    json(await cli('open', channel, '--policy', POLICY(worker), '--json'));
    const example = startScript(EXAMPLE, [channel, worker], env());
    await until(() => example.stdout().includes('waiting in channel'), example);
    for (const text of ['ask one', 'ask two', 'ask three']) {
      json(await cli('say', channel, text, '--json'));
      // One at a time: the worker answers each message before the next.
      await until(() => example.stdout().includes(`${text}\n`), example);
    }
    const run = await example.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('completed');
    const [state] = json(await cli('worker-state', worker, '--json'));
    expect(state).toMatchObject({
      status: 'completed',
      routedMessages: 3,
      report: { summary: 'answered 3 messages', outcome: 'success' },
    });
  }, 90_000);
});

/** Waits for what a running script printed (no clock assertion: the test's timeout bounds it). */
async function until(check: () => boolean, script: { done: Promise<ScriptRun> }) {
  let exited: ScriptRun | null = null;
  void script.done.then((r) => {
    exited = r;
  });
  while (!check()) {
    if (exited) throw new Error(`the script exited first: ${JSON.stringify(exited)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
