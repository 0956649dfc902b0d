import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running script: the child, and its run once it exits. */
export interface RunningScript {
  child: ChildProcessWithoutNullStreams;
  done: Promise<ScriptRun>;
  /** Everything it printed on stdout so far. */
  stdout(): string;
}

/** Starts a Node script as a user would from the shell; `input`, when given, is its whole stdin. */
export function startScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string,
): RunningScript {
  const child = spawn(process.execPath, [script, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<ScriptRun>((resolve) => {
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  if (input !== undefined) child.stdin.end(input);
  return { child, done, stdout: () => stdout };
}

/** Runs a Node script to completion, as a user would from the shell, and collects its output. */
export function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string,
): Promise<ScriptRun> {
  return startScript(script, args, env, input).done;
}
