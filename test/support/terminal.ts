import { spawn } from 'node:child_process';

/**
 * Runs a Node script in a real pseudo-terminal of `columns` columns, as a
 * person at a terminal would (util-linux `script`), so `isTTY` and
 * `columns` are what a user's shell gives. stdout and stderr arrive merged,
 * with `\r\n` line ends as a terminal has them; resolves once it exits.
 */
export function runInTerminal(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  columns = 80,
): Promise<{ code: number; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const line = [process.execPath, script, ...args].map(quote).join(' ');
  const child = spawn(
    'script',
    ['-qec', `stty cols ${columns} rows 40; exec ${line}`, '/dev/null'],
    { env },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve({ code: code ?? -1, output }));
  });
}

const ESCAPES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');

/** Terminal output as the lines a person reads: the last state of each `\r`-redrawn line, no colour codes. */
export function screenLines(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.replace(ESCAPES, '').split('\r').filter(Boolean).at(-1) ?? '');
}
