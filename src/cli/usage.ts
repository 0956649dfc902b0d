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
