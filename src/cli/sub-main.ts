import WebSocket from 'ws';
import {
  type AgentKey,
  type WebSocketConstructor,
  WirestreamClient,
  WirestreamError,
} from '../client';
import type { Output } from './format';
import { jwtClaims } from './jwt-claims';
import { readKeyFile } from './key-file';
import { UsageError } from './usage';

/** stdout/stderr as an `Output`; `--json` anywhere on the line switches to JSON lines. */
export function processOutput(argv: readonly string[]): Output {
  return {
    json: argv.includes('--json'),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

export const serverUrl = () => process.env.WIRESTREAM_URL || 'http://127.0.0.1:8787';
export const envToken = () => process.env.WIRESTREAM_TOKEN || undefined;

/**
 * Who a token speaks for: a JWT's `sub` claim. The only bearer token that is
 * not a JWT is the deployment's ADMIN_TOKEN, which the server takes as
 * `human:admin` (api/auth/authenticate.ts).
 */
export function subjectOf(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const claims = jwtClaims(token);
  if (claims === null) return ADMIN_SUBJECT;
  return typeof claims.sub === 'string' ? claims.sub : undefined;
}

export const ADMIN_SUBJECT = 'human:admin';

/**
 * The client the environment names (WIRESTREAM_URL, WIRESTREAM_TOKEN). A
 * server that does not answer gets one short retry line and one retry, then
 * the error (see `reportError`), not a minute of silent backoff; 5xx and 429
 * are retried as the SDK does, each retry said on stderr. With WIRESTREAM_KEY
 * (a key file from `wirestream keys new`), or `key`, every appended Wire is signed.
 */
export function envClient(
  output: Output = processOutput([]),
  sender?: string,
  key?: AgentKey,
  baseUrl = serverUrl(),
): WirestreamClient {
  const token = envToken();
  const keyFile = process.env.WIRESTREAM_KEY;
  const fromFile = keyFile && !key ? readKeyFile(keyFile) : undefined;
  // Awaited when the first Wire is signed; a bad file is that append's error, not an unhandled one.
  fromFile?.catch(() => {});
  const signingKey = key ?? fromFile;
  let networkRetries = 0;
  return new WirestreamClient({
    baseUrl,
    ...(token ? { token } : {}),
    ...(sender ? { sender } : {}),
    ...(signingKey ? { signingKey } : {}),
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    onRetry: ({ attempt, delayMs, error }) => {
      if (error.code !== 'network') {
        output.err(`retry ${attempt} in ${delayMs} ms after ${error.code}: ${error.detail}`);
        return;
      }
      if (networkRetries++ > 0) throw error;
      output.err(`no answer from ${baseUrl} (${error.detail}); retrying once…`);
    },
  });
}

/**
 * What to do about a refusal, when the CLI knows: an unreachable server names
 * its URL and WIRESTREAM_URL; a 403 on a Wire's sender names `--sender`.
 */
function hintFor(error: WirestreamError): string | undefined {
  if (error.code === 'network') {
    return `cannot reach the Wirestream server at ${serverUrl()}: is it running (npm start)? Set WIRESTREAM_URL to its address.`;
  }
  if (error.status === 403 && /sender/i.test(error.detail)) {
    const subject = subjectOf(envToken());
    return subject
      ? `hint: this token speaks for ${subject}; leave out --sender, or pass --sender ${subject}`
      : "hint: the sender must be the token's subject: pass it with --sender, or use a token minted for that sender";
  }
  return undefined;
}

/**
 * A failed command as its exit code: 2 for a mistaken command line (with
 * where to find the usage), 1 for a refusal by the server (its problem as
 * JSON with --json) or anything else.
 */
export function reportError(error: unknown, output: Output, usage: string): number {
  if (
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    output.err(`error: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  if (error instanceof WirestreamError) {
    output.err(`error: ${error.message}`);
    const hint = hintFor(error);
    if (hint) output.err(hint);
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
    return await run(envClient(output), output);
  } catch (error) {
    return reportError(error, output, usage);
  }
}
