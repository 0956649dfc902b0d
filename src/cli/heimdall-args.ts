import type { WorkspaceClient } from '../client/workspace';
import type { Output } from './format';
import { parseLine, UsageError, valueFlags } from './usage';

/** The workspace commands' options (`wirestream <command> [sub] [a] [b] --flags`). */
export function parse(argv: string[]) {
  return parseLine(argv, {
    force: { type: 'boolean' },
    'on-receipt': { type: 'boolean' },
    ...valueFlags(
      'workspace',
      'what',
      'where',
      'decision',
      'gotcha',
      'depends',
      'task',
      'spec',
      'symbols',
      'capsules',
      'invariants',
      'role',
      'kind',
      'tokens',
      'msg-id',
      'surfaces',
      'ttl',
      'mode',
      'haid',
      'sender',
    ),
  });
}

export type Values = ReturnType<typeof parse>['values'];

export const list = (v: string | undefined) => (v ? v.split(',').filter((x) => x.length > 0) : []);

export function need(value: string | undefined, usage: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing: wirestream ${usage}`);
  return value;
}

export function int(name: string, value: string | undefined): number {
  const n = Number(need(value, `--${name} N`));
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be an integer ≥ 0`);
  return n;
}

/** Counts tokens with gpt-tokenizer (o200k_base), loaded only when a command needs it. */
export async function countTokens(text: string): Promise<number> {
  const { countTokens: count } = await import('gpt-tokenizer');
  return count(text);
}

/** A workspace command's words after its name, and its flags. */
export interface WorkspaceArgs {
  sub: string | undefined;
  a: string | undefined;
  b: string | undefined;
  values: Values;
}

/** One workspace command over the hosted workspace; the exit code. */
export type WorkspaceCommand = (
  w: WorkspaceClient,
  args: WorkspaceArgs,
  out: Output,
) => Promise<number>;
