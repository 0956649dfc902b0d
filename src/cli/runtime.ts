import { RuntimeChannel, RuntimeWorker, type WirestreamClient } from '../client';
import { emit, type Output, wireLine } from './format';
import { subMain } from './sub-main';
import { intFlag, jsonArg, parseLine, UsageError, valueFlags } from './usage';

/**
 * Seed 003's Runtime v1 from a shell: the channel side (open, say, state,
 * follow) and the worker side (spawn, progress, complete, fail, its feed),
 * and the visor's bulletins — each over the SDK's RuntimeChannel/RuntimeWorker.
 */
export const RUNTIME_COMMANDS = new Set(['runtime']);

export const RUNTIME_USAGE = `Runtime v1 commands (seed 003; --json on each):
  runtime open <channel> --policy JSON [--budget TOKENS]      a channel with its rule policy
  runtime say <channel> <text> [--to WORKER] [--role R]       routed by the policy, or to a worker
  runtime state <channel> | runtime worker-state <worker>
  runtime follow channel|worker <id> [--after N] [--until MESSAGE_TYPE]   live, until Ctrl-C
  runtime spawn <worker> --channel C --goal G [--toolset a,b] [--mode interactive|fire_and_forget]
                [--timeout SECONDS] [--branch B]
  runtime progress <worker> --status running|waiting [--note N] [--percent P]
  runtime complete <worker> --summary S [--outcome success|partial|no_op] [--artifacts a,b]
                [--tokens IN,OUT]
  runtime fail <worker> --message M [--reason error|cancelled]
  runtime bulletins [--limit N]
  (progress, complete, fail take the worker's channel from its state, or --channel C)`;

function parse(argv: string[]) {
  return parseLine(argv, {
    ...valueFlags(
      'policy',
      'budget',
      'to',
      'role',
      'after',
      'until',
      'channel',
      'branch',
      'goal',
      'toolset',
      'mode',
      'timeout',
      'status',
      'note',
      'percent',
      'summary',
      'outcome',
      'artifacts',
      'tokens',
      'message',
      'reason',
      'limit',
    ),
  });
}

type Flags = ReturnType<typeof parse>['values'];

const COMMANDS = [
  'open',
  'say',
  'state',
  'worker-state',
  'follow',
  'spawn',
  'progress',
  'complete',
  'fail',
  'bulletins',
];
type Json = Record<string, unknown>;

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing: ${what}`);
  return value;
}

function oneOf<const T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: NoInfer<T>,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw new UsageError(`--${flag} must be one of ${allowed.join('|')}, got "${value}"`);
  return value as T;
}

const list = (value: string | undefined) =>
  value === undefined ? [] : value.split(',').filter((s) => s !== '');

/** Runs `runtime …`; the exit code. */
export function runtimeMain(argv: string[]): Promise<number> {
  return subMain(argv, RUNTIME_USAGE, async (client, output) => {
    const { values, positionals } = parse(argv);
    const [, command = '', id, ...rest] = positionals;
    if (!COMMANDS.includes(command))
      throw new UsageError(`unknown runtime command "${command}": ${COMMANDS.join('|')}`);
    if (command === 'bulletins') return bulletins(client, values, output);
    if (command === 'follow') return follow(client, id, rest[0], values, output);
    const side = ['open', 'say', 'state'].includes(command) ? 'channel' : 'worker';
    const target = need(id, `the ${side} id`);
    switch (command) {
      case 'open':
        return done(output, await openChannel(client, target, values));
      case 'say':
        return done(output, await say(client, target, rest.join(' '), values));
      case 'state':
        return done(output, await new RuntimeChannel(client, target).state());
      case 'worker-state':
        return done(output, await new RuntimeWorker(client, target, '').state());
      case 'spawn':
        return done(output, await spawn(client, target, values));
      default:
        return report(await workerOf(client, target, values), command, values).then((body) =>
          done(output, body),
        );
    }
  });
}

function done(output: Output, body: unknown): number {
  emit(output, body, JSON.stringify(body, null, 2));
  return 0;
}

function openChannel(client: WirestreamClient, channel: string, values: Flags) {
  const policy = jsonArg('--policy', need(values.policy, '--policy JSON'));
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy))
    throw new UsageError('--policy must be a JSON object ({"rules":[…],"default":{…}})');
  const budget = intFlag('budget', values.budget, 8000, 1);
  return RuntimeChannel.open(client, channel, policy as Json, budget).then((ch) => ch.state());
}

function say(client: WirestreamClient, channel: string, text: string, values: Flags) {
  if (text.trim() === '') throw new UsageError('missing: the message text');
  const ch = new RuntimeChannel(client, channel);
  if (values.to) return ch.route(values.to, text);
  return ch.say(text, values.role ? { role: values.role } : {});
}

async function spawn(client: WirestreamClient, workerId: string, values: Flags) {
  const timeout =
    values.timeout === undefined
      ? {}
      : { timeoutSeconds: intFlag('timeout', values.timeout, 0, 1) };
  const worker = await RuntimeWorker.spawn(client, {
    workerId,
    channelId: need(values.channel, '--channel C'),
    ...(values.branch ? { branchId: values.branch } : {}),
    spec: {
      goal: need(values.goal, '--goal G'),
      toolset: list(values.toolset),
      mode: oneOf('mode', values.mode, ['interactive', 'fire_and_forget'], 'fire_and_forget'),
      ...timeout,
    },
  });
  return worker.state();
}

/** The worker as its state names it (channel, branch), unless --channel says. */
async function workerOf(client: WirestreamClient, workerId: string, values: Flags) {
  if (values.channel) return new RuntimeWorker(client, workerId, values.channel, values.branch);
  const state = await new RuntimeWorker(client, workerId, '').state();
  const branch = typeof state.branchId === 'string' ? state.branchId : undefined;
  return new RuntimeWorker(client, workerId, String(state.channelId ?? ''), branch);
}

function report(worker: RuntimeWorker, command: string, values: Flags) {
  if (command === 'progress') {
    const status = oneOf(
      'status',
      need(values.status, '--status running|waiting'),
      ['running', 'waiting'],
      'running',
    );
    const percent =
      values.percent === undefined ? undefined : intFlag('percent', values.percent, 0);
    return worker.progress(status, values.note, percent);
  }
  if (command === 'fail')
    return worker.fail(
      oneOf('reason', values.reason, ['error', 'cancelled'], 'error'),
      need(values.message, '--message M'),
    );
  const tokens = list(values.tokens);
  if (values.tokens !== undefined && tokens.length !== 2)
    throw new UsageError(`--tokens must be IN,OUT (two integers), got "${values.tokens}"`);
  const [input, output] = tokens.map((t, i) =>
    intFlag(i === 0 ? 'tokens (IN)' : 'tokens (OUT)', t, 0),
  );
  return worker.complete(
    {
      summary: need(values.summary, '--summary S'),
      outcome: oneOf('outcome', values.outcome, ['success', 'partial', 'no_op'], 'success'),
    },
    list(values.artifacts),
    input === undefined || output === undefined ? undefined : { input, output },
  );
}

async function bulletins(client: WirestreamClient, values: Flags, output: Output) {
  const limit = intFlag('limit', values.limit, 20, 1);
  const res = await client.http.request<{ bulletins: Json[] }>(
    'GET',
    `/v1/bulletins?limit=${limit}`,
  );
  for (const b of res.body.bulletins)
    emit(output, b, `${b.window_to}\t${b.bulletin_id}\t${b.digest}`);
  return 0;
}

/** `follow channel|worker <id>`: the stream live (resumed after drops); `--until` ends on a type. */
async function follow(
  client: WirestreamClient,
  kind: string | undefined,
  id: string | undefined,
  values: Flags,
  output: Output,
): Promise<number> {
  if (kind !== 'channel' && kind !== 'worker')
    throw new UsageError(`runtime follow needs channel|worker, got "${kind ?? ''}"`);
  const stream = `${kind}:${need(id, `the ${kind} id`)}`;
  const until = values.until === undefined ? null : `runtime.${values.until}`;
  let done = false;
  const sub = client.subscribe(stream, {
    afterSeq: intFlag('after', values.after, 0),
    onWires: (wires) => {
      for (const wire of wires) {
        if (done) return;
        emit(output, wire, wireLine(wire));
        if (wire.type === until) {
          // The rest of this batch (a replay delivers many) is after the match.
          done = true;
          sub.close();
        }
      }
    },
  });
  const stop = () => sub.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await sub.closed;
  return 0;
}
