import { type ParseArgsConfig, parseArgs } from 'node:util';
/** A mistake in how the CLI was called: reported without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--name`'s value as an integer ≥ `min`, or `fallback` when the flag is absent. */
export function intFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = 0,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  }
  return n;
}

/** JSON text given on the command line, `what` naming where it came from. */
export function jsonArg(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

/** `parseArgs` options for flags that take a value (`--name value`), one entry per name. */
export function valueFlags<const N extends string>(
  ...names: N[]
): { [K in N]: { type: 'string' } } {
  return Object.fromEntries(names.map((n) => [n, { type: 'string' }])) as {
    [K in N]: { type: 'string' };
  };
}

/** A command line: positionals, `--json`, and `options` (throws on an unknown option). */
export function parseLine<const O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, ...options } as { json: { type: 'boolean' } } & O,
  });
}
