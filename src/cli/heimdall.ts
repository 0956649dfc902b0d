import type { WirestreamClient } from '../client';
import { WorkspaceClient } from '../client/workspace';
import { emit, type Output } from './format';
import { countTokens, int, list, need, parse, type WorkspaceCommand } from './heimdall-args';
import { capsule, claims, ledger, symbols, validate } from './heimdall-commands';
import { subMain } from './sub-main';
import { UsageError } from './usage';

/**
 * Seed 001's bins as `wirestream` commands, over a hosted workspace
 * (`--workspace W`, or WIRESTREAM_WORKSPACE; default `default`):
 *   symbols set|get|reverse|list   (heimdall-resolve)
 *   capsule write|hydrate|deps     (heimdall-capsule)
 *   brief build                    (heimdall-brief; tokens counted with gpt-tokenizer)
 *   blackboard set|get|list        (heimdall-blackboard)
 *   ledger log|baseline|delta|report (heimdall-ledger)
 *   validate [--on-receipt]        (heimdall-validate; JSON lines on stdin)
 *   claims list|make|release       (heimdall-claim)
 *   log [N]                        (heimdall-protocol log)
 *   demo                           (heimdall-protocol demo: the measured wave)
 */
export const HEIMDALL_COMMANDS = new Set([
  'symbols',
  'capsule',
  'brief',
  'blackboard',
  'ledger',
  'validate',
  'claims',
  'log',
  'demo',
]);

export const HEIMDALL_USAGE = `workspace commands (--workspace W or WIRESTREAM_WORKSPACE; --json on each):
  symbols set ID VALUE [--force] | symbols get ID | symbols reverse VALUE | symbols list
  capsule write ID --what T [--where T] [--decision T] [--gotcha T] [--depends a,b]
  capsule hydrate ID | capsule deps ID
  brief build --task T --spec S [--symbols a,b] [--capsules a,b] [--invariants REF]
  blackboard set KEY VALUE | blackboard get KEY | blackboard list
  ledger log --role R --kind K --tokens N [--msg-id M] | ledger baseline --role R --tokens N
  ledger delta --role R | ledger report
  validate [--on-receipt]          JSON messages, one per line on stdin
  claims list | claims make --surfaces a,b --task T [--ttl MIN] [--mode shared] [--haid H]
  claims release [CLAIM_ID] [--haid H]
  log [N]
  demo                              the seed's measured demo (one wave, v1 vs v2)`;

/** Runs one workspace command; the exit code. */
export async function heimdall(
  client: WirestreamClient,
  argv: string[],
  output: Output,
): Promise<number> {
  const { values, positionals } = parse(argv);
  const out: Output = { ...output, json: values.json === true };
  const w = new WorkspaceClient(
    client,
    values.workspace ?? process.env.WIRESTREAM_WORKSPACE ?? 'default',
  );
  const [command, sub, a, b] = positionals;
  const run =
    command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === undefined) throw new UsageError(`unknown workspace command "${command}"`);
  return run(w, { sub, a, b, values }, out);
}

const brief: WorkspaceCommand = async (w, { sub, values }, out) => {
  if (sub !== 'build') throw new UsageError('brief build --task T --spec S …');
  const input = {
    task: need(values.task, 'brief build --task T'),
    spec: need(values.spec, 'brief build --spec S'),
    symbols: list(values.symbols),
    capsules: list(values.capsules),
    invariants: values.invariants ?? null,
  };
  const dry = await w.buildBrief({ ...input, dry_run: true });
  const tokens = await countTokens(dry.brief.text);
  const built = await w.buildBrief({ ...input, tokens });
  emit(out, built, `${built.brief.text}\n(${tokens} tokens, logged to the ledger)`);
  return 0;
};

const blackboard: WorkspaceCommand = async (w, { sub, a, b }, out) => {
  if (sub === 'set') {
    const r = await w.setFact(
      need(a, 'blackboard set KEY VALUE'),
      need(b, 'blackboard set KEY VALUE'),
    );
    emit(out, r, `${a}\t${b}`);
  } else if (sub === 'get') {
    const value = await w.fact(need(a, 'blackboard get KEY'));
    emit(out, { key: a, value }, value);
  } else if (sub === 'list') {
    const facts = await w.facts();
    emit(out, facts, facts.map((f) => `${f.key}\t${f.value}`).join('\n'));
  } else throw new UsageError('blackboard set|get|list');
  return 0;
};

const log: WorkspaceCommand = async (w, { sub }, out) => {
  const n = sub === undefined ? 50 : int('N', sub);
  const text = await w.log(n);
  if (out.json)
    for (const line of text.trimEnd().split('\n')) out.out(JSON.stringify(line.split('\t')));
  else out.out(text.trimEnd());
  return 0;
};

const demo: WorkspaceCommand = async (w, _args, out) => {
  const { demo: run } = await import('./heimdall-demo');
  return run(w, out);
};

const COMMANDS: Record<string, WorkspaceCommand | undefined> = {
  symbols,
  capsule,
  brief,
  blackboard,
  ledger,
  validate,
  claims,
  log,
  demo,
};

/** `wirestream <workspace command> …`: its own options, client and exit codes (2: usage). */
export function heimdallMain(argv: string[]): Promise<number> {
  return subMain(argv, HEIMDALL_USAGE, (client, output) => heimdall(client, argv, output));
}
