import WebSocket from 'ws';
import { type WebSocketConstructor, WirestreamClient, WirestreamError } from '../client';
import type { Output } from './format';
import { UsageError } from './usage';

/** stdout/stderr as an `Output`; `--json` anywhere on the line switches to JSON lines. */
export function processOutput(argv: readonly string[]): Output {
  return {
    json: argv.includes('--json'),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

/** The client the environment names (WIRESTREAM_URL, WIRESTREAM_TOKEN); it can follow streams (ws). */
export function envClient(): WirestreamClient {
  const token = process.env.WIRESTREAM_TOKEN || undefined;
  return new WirestreamClient({
    baseUrl: process.env.WIRESTREAM_URL || 'http://127.0.0.1:8787',
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    ...(token ? { token } : {}),
  });
}

/**
 * A failed command as its exit code: 2 for a mistaken command line (with the
 * usage), 1 for a refusal by the server (its problem as JSON with --json) or
 * anything else.
 */
export function reportError(error: unknown, output: Output, usage: string): number {
  if (
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    output.err(`error: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (error instanceof WirestreamError) {
    output.err(`error: ${error.message}`);
    if (output.json) output.out(JSON.stringify({ error: error.problem, status: error.status }));
    return 1;
  }
  output.err(`error: ${(error as Error).message}`);
  return 1;
}

/** A command family with its own options (`wirestream <family> …`), run over the env's client. */
export async function subMain(
  argv: string[],
  usage: string,
  run: (client: WirestreamClient, output: Output) => Promise<number>,
): Promise<number> {
  const output = processOutput(argv);
  try {
    return await run(envClient(), output);
  } catch (error) {
    return reportError(error, output, usage);
  }
}
