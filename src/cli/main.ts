import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { type WebSocketConstructor, WirestreamClient } from '../client';
import { append, tail } from './commands';
import { EVENTS_COMMANDS, EVENTS_USAGE, eventsMain } from './events';
import type { Output } from './format';
import { HEIMDALL_COMMANDS, HEIMDALL_USAGE, heimdallMain } from './heimdall';
import { jwtClaims } from './jwt-claims';
import { RUNTIME_COMMANDS, RUNTIME_USAGE, runtimeMain } from './runtime';
import { reportError } from './sub-main';
import { token } from './token';
import { UsageError, valueFlags } from './usage';
import { verify } from './verify';

const USAGE = `usage: wirestream <command> [options]

  append <stream> --type T [--payload JSON] [--count N]   (or JSON lines on stdin)
  tail <stream> [--after N] [--follow]
  claim <task> --role R [--attempt N] [--lease SECONDS]
  verify <topic> [--mirror URL]
  token [--sub S --scopes a,b --roles r --expires-in SECONDS]
  mcp [--url URL] [--token T]   a stdio MCP server forwarding to URL/mcp
  run <run_id> --create JSON | --message JSON | --request KIND [--payload JSON]
               | --revisions | [--revision N]   (seed 002: a run, its writer, its document)

  --json     one JSON object per line instead of human text
  --sender   sender of appended Wires (default: the token's subject)

environment: WIRESTREAM_URL (default http://127.0.0.1:8787), WIRESTREAM_TOKEN,
             WIRESTREAM_MIRROR_URL (verify; default http://127.0.0.1:5551)

${HEIMDALL_USAGE}

${EVENTS_USAGE}

${RUNTIME_USAGE}`;

/** Runs one CLI command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  if (HEIMDALL_COMMANDS.has(argv[0] ?? '')) return heimdallMain(argv);
  if (EVENTS_COMMANDS.has(argv[0] ?? '')) return eventsMain(argv);
  if (RUNTIME_COMMANDS.has(argv[0] ?? '')) return runtimeMain(argv);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    // node:util's parseArgs: an unknown option or one missing its value.
    process.stderr.write(`error: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const output: Output = {
    json: values.json === true,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
  const [command, target] = positionals;
  if (values.help || !command) {
    output.out(USAGE);
    // Asked for (--help): done. No command at all: a mistaken command line.
    return values.help || command ? 0 : 2;
  }
  const tokenValue = process.env.WIRESTREAM_TOKEN || undefined;
  const client = new WirestreamClient({
    baseUrl: process.env.WIRESTREAM_URL || 'http://127.0.0.1:8787',
    ...(tokenValue ? { token: tokenValue } : {}),
    sender: values.sender ?? subjectOf(tokenValue) ?? 'human:cli',
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    onRetry: ({ attempt, delayMs, error }) =>
      output.err(`retry ${attempt} in ${delayMs} ms after ${error.code}: ${error.detail}`),
  });
  try {
    switch (command) {
      case 'append':
        return await append(client, need(target, 'append <stream>'), values, output);
      case 'tail':
        return await tail(client, need(target, 'tail <stream>'), values, output);
      case 'verify':
        return await verify(need(target, 'verify <topic>'), values, output);
      case 'token':
        return await token(client, tokenValue, values, output);
      case 'mcp': {
        const { mcpEndpoint, runBridge } = await import('./mcp-stdio');
        const mcpToken = values.token ?? tokenValue;
        if (!mcpToken) throw new UsageError('mcp needs --token or WIRESTREAM_TOKEN');
        return await runBridge({
          url: mcpEndpoint(values.url ?? process.env.WIRESTREAM_URL ?? 'http://127.0.0.1:8787'),
          token: mcpToken,
          input: process.stdin,
          write: (line) => process.stdout.write(`${line}\n`),
          log: (line) => process.stderr.write(`${line}\n`),
        });
      }
      case 'claim': {
        const { claim } = await import('./claim');
        return await claim(client, need(target, 'claim <task>'), values, output);
      }
      case 'run':
        return await (await import('./run')).run(
          client,
          need(target, 'run <run_id>'),
          values,
          output,
        );
      default:
        output.err(`unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`error: ${error.message} (wirestream --help)`);
      return 2;
    }
    return reportError(error, output, USAGE);
  }
}

function need(value: string | undefined, usage: string): string {
  if (!value) throw new UsageError(`missing argument: wirestream ${usage}`);
  return value;
}

/** The `sub` claim of a JWT, so appended Wires name the token's subject. */
function subjectOf(jwt: string | undefined): string | undefined {
  const sub = jwtClaims(jwt)?.sub;
  return typeof sub === 'string' ? sub : undefined;
}

/** The command line; throws on an unknown option or one missing its value. */
function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      follow: { type: 'boolean', short: 'f' },
      help: { type: 'boolean', short: 'h' },
      ...valueFlags(
        'after',
        'type',
        'payload',
        'sender',
        'count',
        'role',
        'attempt',
        'lease',
        'mirror',
        'sub',
        'scopes',
        'roles',
        'streams',
        'expires-in',
        'url',
        'token',
        'message',
        'revision',
        'create',
        'request',
      ),
      revisions: { type: 'boolean' },
    },
  });
}
