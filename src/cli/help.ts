import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './usage';

/**
 * What `wirestream help <command>` shows and which options a command takes.
 * Every command family (`spec-*.ts`) exports its specs and `spec-index.ts`
 * lists them: `wirestream <cmd> --help`, the overview, "did you mean" and the
 * refusal of another command's options all read from there. A command
 * without a spec still runs; it just gets no help page and no option check.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in help (`N`, `JSON`); string options only. */
  value?: string;
  help: string;
  /** A string option that may be given more than once (its value is then a list). */
  multiple?: boolean;
}

export interface CommandSpec {
  name: string;
  /** The heading of the overview this command is listed under. */
  group: string;
  /** Argument synopsis after the name, e.g. `<stream> --type T [--payload JSON]`. */
  synopsis: string;
  /** One line: what it does. */
  summary: string;
  /** Further lines for `--help` (exit codes, stdin, what is printed). */
  details?: string;
  /** Shell lines, shown as they are. */
  examples: string[];
  options: Record<string, OptionSpec>;
}

/** An option taking a value, shown as `--name VALUE`. */
export const str = (value: string, help: string): OptionSpec => ({ type: 'string', value, help });
/** An on/off option, with an optional one-letter form. */
export const flag = (help: string, short?: string): OptionSpec => ({
  type: 'boolean',
  help,
  ...(short ? { short } : {}),
});

/** Options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: flag('one JSON object per line instead of human text'),
  help: flag('this help', 'h'),
};

/** A command's options for `node:util` parseArgs (its own plus the global ones). */
export function parseOptions(spec: CommandSpec): NonNullable<ParseArgsConfig['options']> {
  const all = { ...GLOBAL_OPTIONS, ...spec.options };
  return Object.fromEntries(
    Object.entries(all).map(([name, o]) => [
      name,
      {
        type: o.type,
        ...(o.short ? { short: o.short } : {}),
        ...(o.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

/**
 * Edit distance: inserting, deleting, substituting or swapping two adjacent
 * characters costs 1 (optimal string alignment), so `tial` is 1 from `tail`.
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The closest candidate within a third of the word's length (at least 1, at most 3 edits). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance || (d === bestDistance && best !== undefined && c < best)) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

const suggestion = (hint: string | undefined) => (hint ? `; did you mean ${hint}?` : '');

/** `unknown command "tial"; did you mean tail?` as a UsageError. */
export function unknownCommand(name: string, specs: readonly CommandSpec[]): UsageError {
  const hint = closest(
    name,
    specs.map((s) => s.name),
  );
  return new UsageError(`unknown command "${name}"${suggestion(hint)}`);
}

/** The option names a command line uses (`--name`, `--name=v`, `-x`), up to `--`. */
function usedOptions(
  argv: readonly string[],
  spec: CommandSpec,
): { name: string; written: string }[] {
  const all = { ...GLOBAL_OPTIONS, ...spec.options };
  const byShort = new Map(
    Object.entries(all).flatMap(([n, o]) => (o.short ? [[o.short, n] as const] : [])),
  );
  const used: { name: string; written: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0] ?? '';
      used.push({ name, written: `--${name}` });
      // A string option's value is the next argument, whatever it looks like.
      if (all[name]?.type === 'string' && !arg.includes('=')) i++;
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      for (const ch of arg.slice(1)) {
        const name = byShort.get(ch);
        used.push({ name: name ?? `-${ch}`, written: `-${ch}` });
        if (name && all[name]?.type === 'string') {
          i++;
          break;
        }
      }
    }
  }
  return used;
}

/**
 * Refuses an option `spec` does not take: one of another command's is named
 * with its command (it would otherwise be silently ignored), anything else
 * gets the nearest option of this command as a suggestion.
 */
export function checkOptions(
  argv: readonly string[],
  spec: CommandSpec,
  specs: readonly CommandSpec[],
): void {
  const own = { ...GLOBAL_OPTIONS, ...spec.options };
  for (const { name, written } of usedOptions(argv, spec)) {
    if (name in own) continue;
    const short = written.startsWith('--') ? undefined : written.slice(1);
    const owners = specs
      .filter((s) =>
        short === undefined
          ? name in s.options
          : Object.values(s.options).some((o) => o.short === short),
      )
      .map((s) => s.name);
    if (owners.length > 0) {
      throw new UsageError(`${written} is an option of ${owners.join(', ')}, not of ${spec.name}`);
    }
    const hint = short === undefined ? closest(name, Object.keys(own)) : undefined;
    throw new UsageError(
      `unknown option ${written} for ${spec.name}${suggestion(hint ? `--${hint}` : undefined)}`,
    );
  }
}

function optionLine(name: string, o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
  return `  ${flag.padEnd(26)} ${o.help}`;
}

/** `wirestream <cmd> --help`. */
export function commandHelp(spec: CommandSpec, environment: string): string {
  const options = { ...spec.options, ...GLOBAL_OPTIONS };
  return [
    `usage: wirestream ${spec.name} ${spec.synopsis}`.trimEnd(),
    '',
    spec.summary,
    ...(spec.details ? ['', spec.details] : []),
    '',
    'options:',
    ...Object.entries(options).map(([n, o]) => optionLine(n, o)),
    '',
    spec.examples.length > 1 ? 'examples:' : 'example:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    environment,
  ].join('\n');
}

/** `wirestream help`: every command with its one-line summary, by group. */
export function overview(specs: readonly CommandSpec[], environment: string): string {
  const groups = new Map<string, CommandSpec[]>();
  for (const s of specs) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
  const width = Math.max(...specs.map((s) => s.name.length)) + 2;
  const sections = [...groups].map(
    ([group, list]) =>
      `${group}:\n${list.map((s) => `  ${s.name.padEnd(width)}${s.summary}`).join('\n')}`,
  );
  return [
    'usage: wirestream <command> [options]',
    '',
    ...sections.flatMap((s) => [s, '']),
    'wirestream <command> --help (or wirestream help <command>) shows its options and an example;',
    'wirestream --version prints the version. --json on every command: one JSON object per line.',
    '',
    environment,
  ].join('\n');
}
