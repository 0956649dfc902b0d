import { spawn } from 'node:child_process';

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a Node script to completion, as a user would from the shell, and collects its output. */
export function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
