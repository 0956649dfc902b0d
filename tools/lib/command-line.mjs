// Command lines of the tools: node:util's parseArgs, with a mistake reported
// as one line and exit code 2 instead of a stack trace.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** `parseArgs(config)`; on an unknown option or a missing value prints why (and `usage`) and exits 2. */
export function commandLine(config, usage) {
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`error: ${error.message}${usage ? `\n\n${usage}` : ''}`);
    process.exit(2);
  }
}

/** `values[name]` as a whole number ≥ `min`; exits 2 naming the flag otherwise. */
export function wholeNumber(values, name, min = 0) {
  const text = String(values[name] ?? '');
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < min) {
    console.error(`error: --${name} must be a whole number ≥ ${min}, got "${text}"`);
    process.exit(2);
  }
  return n;
}

/**
 * A command line of whole-number options only, `--name N` each, with the
 * defaults given: parsed as `commandLine` does, each checked ≥ `min` as
 * `wholeNumber` does. Answers the numbers by option name.
 */
export function wholeNumberOptions(defaults, usage, min = 1) {
  const names = Object.keys(defaults);
  const options = Object.fromEntries(
    names.map((name) => [name, { type: 'string', default: String(defaults[name]) }]),
  );
  const { values } = commandLine({ options }, usage);
  return Object.fromEntries(names.map((name) => [name, wholeNumber(values, name, min)]));
}

/** `--help` of a tool whose usage is its header comment: prints lines 2…`last` of the file, exits 0. */
export function printHeaderHelp(metaUrl, last) {
  console.log(readFileSync(new URL(metaUrl), 'utf8').split('\n').slice(1, last).join('\n'));
  process.exit(0);
}
