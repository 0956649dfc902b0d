import { parseArgs } from 'node:util';
import pkg from '../../package.json';
import type { WirestreamClient } from '../client';
import { append, tail } from './commands';
import { EVENTS_COMMANDS, EVENTS_USAGE, eventsMain } from './events';
import type { Output } from './format';
import { HEIMDALL_COMMANDS, HEIMDALL_USAGE, heimdallMain } from './heimdall';
import {
  type CommandSpec,
  checkOptions,
  commandHelp,
  overview,
  parseOptions,
  unknownCommand,
} from './help';
import { KEYS_COMMANDS, KEYS_USAGE, keysMain } from './keys';
import { RUNTIME_COMMANDS, RUNTIME_USAGE, runtimeMain } from './runtime';
import { ENVIRONMENT } from './spec-core';
import { COMMAND_SPECS, specFor } from './spec-index';
import { envClient, envToken, processOutput, reportError, subjectOf } from './sub-main';
import { token } from './token';
import { UsageError } from './usage';
import { verify } from './verify';

/**
 * Command families that parse their own lines (`wirestream <family> …`). A new
 * family adds a line here and its specs to spec-index.ts; a command without a
 * spec still runs (unchecked), and its `--help` is the family's usage.
 */
const FAMILIES: {
  commands: ReadonlySet<string>;
  run: (argv: string[]) => Promise<number>;
  usage: string;
}[] = [
  { commands: HEIMDALL_COMMANDS, run: heimdallMain, usage: HEIMDALL_USAGE },
  { commands: EVENTS_COMMANDS, run: eventsMain, usage: EVENTS_USAGE },
  { commands: RUNTIME_COMMANDS, run: runtimeMain, usage: RUNTIME_USAGE },
  { commands: KEYS_COMMANDS, run: keysMain, usage: KEYS_USAGE },
];
const familyOf = (name: string | undefined) => FAMILIES.find((f) => f.commands.has(name ?? ''));

/** The overview: every spec, then the usage of families with commands that have none. */
const OVERVIEW = [
  overview(COMMAND_SPECS, ENVIRONMENT),
  ...FAMILIES.filter((f) => [...f.commands].some((c) => !specFor(c))).map((f) => f.usage),
].join('\n\n');

/** The arguments before `--` (after it, everything is a positional). */
const optionPart = (argv: string[]) => argv.slice(0, argv.indexOf('--') >>> 0);

/**
 * `--version`, `help [command]`, `<command> --help` and `--help`: printed on
 * stdout, exit 0. Undefined when the line asks for none of them.
 */
function helpOrVersion(argv: string[], output: Output): number | undefined {
  const options = optionPart(argv);
  if (argv[0] === '--version' || argv[0] === '-V') {
    output.out(`wirestream ${pkg.version}`);
    return 0;
  }
  const first = argv[0];
  const wantsHelp = options.some((a) => a === '--help' || a === '-h');
  let name: string | undefined;
  if (first === 'help') name = argv[1]?.startsWith('-') ? 'help' : argv[1];
  else if (wantsHelp) name = first?.startsWith('-') ? undefined : first;
  else return undefined;
  if (name === undefined) {
    output.out(OVERVIEW);
    return 0;
  }
  const spec = specFor(name);
  const family = familyOf(name);
  if (!spec && family) {
    output.out(family.usage);
    return 0;
  }
  if (!spec) throw unknownCommand(name, COMMAND_SPECS);
  output.out(commandHelp(spec, ENVIRONMENT));
  return 0;
}

/** Runs one CLI command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const output = processOutput(argv);
  const name = argv[0];
  const spec = specFor(name);
  try {
    const early = helpOrVersion(argv, output);
    if (early !== undefined) return early;
    if (name === undefined) {
      output.err(OVERVIEW);
      return 2; // no command at all: a mistaken command line
    }
    if (name.startsWith('-')) {
      throw new UsageError('the command comes first: wirestream <command> [options]');
    }
    if (spec) checkOptions(optionPart(argv), spec, COMMAND_SPECS);
    const family = familyOf(name);
    if (family) return await family.run(argv);
    if (!spec) throw unknownCommand(name, COMMAND_SPECS);
    return await core(spec, argv, output);
  } catch (error) {
    const see = spec && spec.name !== 'help' ? `wirestream ${spec.name} --help` : 'wirestream help';
    return reportError(error, output, `see ${see}`);
  }
}

/** The stream commands (spec-core.ts), parsed with only their own options. */
async function core(spec: CommandSpec, argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv.slice(1),
    allowPositionals: true,
    options: parseOptions(spec),
  }) as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  const flags = values as Record<string, string | undefined>;
  const target = positionals[0];
  const tokenValue = envToken();
  const client = (): WirestreamClient =>
    envClient(output, flags.sender ?? subjectOf(tokenValue) ?? 'human:cli', undefined, flags.api);
  const need = (what: string) => {
    if (!target) throw new UsageError(`missing argument: wirestream ${spec.name} <${what}>`);
    return target;
  };
  switch (spec.name) {
    case 'append':
      return append(client(), need('stream'), flags, output);
    case 'tail':
      return tail(client(), need('stream'), { ...flags, follow: values.follow === true }, output);
    case 'verify':
      return verify(target, { ...flags, log: values.log === true }, client, output);
    case 'token':
      return token(client(), tokenValue, flags, output);
    case 'claim': {
      const { claim } = await import('./claim');
      return claim(client(), need('task'), { ...flags, verbose: values.verbose === true }, output);
    }
    case 'run':
      return (await import('./run')).run(
        client(),
        need('run_id'),
        { ...flags, revisions: values.revisions as boolean | undefined },
        output,
      );
    case 'mcp': {
      const { mcpEndpoint, runBridge } = await import('./mcp-stdio');
      const mcpToken = flags.token ?? tokenValue;
      if (!mcpToken) throw new UsageError('mcp needs --token or WIRESTREAM_TOKEN');
      // A keyed agent's tool calls: the bridge signs the Wires the server builds.
      const keyFile = process.env.WIRESTREAM_KEY;
      const key = keyFile ? await (await import('./key-file')).readKeyFile(keyFile) : null;
      const { signatureOffer } = await import('../client/signing');
      return runBridge({
        url: mcpEndpoint(flags.url ?? process.env.WIRESTREAM_URL ?? 'http://127.0.0.1:8787'),
        token: mcpToken,
        ...(key ? { sign: (unsigned) => signatureOffer(unsigned, key) } : {}),
        input: process.stdin,
        write: (line) => process.stdout.write(`${line}\n`),
        log: (line) => process.stderr.write(`${line}\n`),
      });
    }
    default:
      throw unknownCommand(spec.name, COMMAND_SPECS);
  }
}
