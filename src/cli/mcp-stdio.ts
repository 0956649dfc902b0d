import { SIGNING_ROUNDS, wiresToSign } from '../client/signing';
import { SIGNATURES_HEADER } from '../protocol/signature';
import { FrameReader } from './mcp-framing';
import { UsageError } from './usage';

/**
 * `wirestream mcp --url URL --token T`: a stdio MCP server for hosts that
 * only spawn processes. It forwards each JSON-RPC message from stdin to the
 * Wirestream `/mcp` endpoint (Streamable HTTP) with the user's token, keeps
 * the session id the server issues at initialize, and writes every answer as
 * one JSON line on stdout. Nothing of MCP is reimplemented here: the server
 * behind the URL answers, in whichever protocol era the host speaks.
 *
 * With a signing key (WIRESTREAM_KEY), an agent that registered keys uses
 * the tools as any other: a tool call refused because the Wire the server
 * built is unsigned (`signature-required`, with the Wire as `unsigned`) is
 * signed here and sent again with the signature offered in
 * `Wirestream-Signatures`; the host sees only the second answer.
 */

interface Message {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: { protocolVersion?: string };
}

export interface BridgeOptions {
  url: string;
  token: string;
  input: NodeJS.ReadableStream;
  write(line: string): void;
  log(line: string): void;
  /** Signs a Wire a tool call's refusal showed (`unsigned`) as an offer: set with a key file. */
  sign?: (unsigned: Record<string, unknown>) => Promise<unknown>;
}

export function mcpEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be a URL such as http://127.0.0.1:8787, got "${url}"`);
  }
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/mcp';
  return parsed.href;
}

export async function runBridge(options: BridgeOptions): Promise<number> {
  const bridge = new Bridge(options);
  const reader = new FrameReader();
  for await (const chunk of options.input) {
    for (const body of reader.push(chunk as Buffer)) await bridge.forward(body);
  }
  for (const body of reader.end()) await bridge.forward(body);
  await bridge.close();
  return 0;
}

class Bridge {
  #session: string | null = null;
  #version: string | null = null;
  readonly #o: BridgeOptions;

  constructor(options: BridgeOptions) {
    this.#o = options;
  }

  async forward(body: string): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(body) as Message;
    } catch (error) {
      this.#o.write(rpcError(null, -32700, `Parse error: ${(error as Error).message}`));
      return;
    }
    const offers: unknown[] = [];
    for (let round = 0; ; round++) {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${this.#o.token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      };
      if (this.#session) headers['Mcp-Session-Id'] = this.#session;
      if (this.#version) headers['MCP-Protocol-Version'] = this.#version;
      if (offers.length > 0) headers[SIGNATURES_HEADER] = JSON.stringify(offers);
      let res: Response;
      try {
        res = await fetch(this.#o.url, { method: 'POST', headers, body });
      } catch (error) {
        this.#answerFailure(
          message,
          -32603,
          `cannot reach ${this.#o.url}: ${(error as Error).message}`,
        );
        return;
      }
      const session = res.headers.get('Mcp-Session-Id');
      if (session) this.#session = session;
      const type = res.headers.get('Content-Type') ?? '';
      const text = await res.text();
      const answers = type.includes('text/event-stream')
        ? sseData(text)
        : text.trim()
          ? [text]
          : [];
      const wanted =
        this.#o.sign && message.method === 'tools/call' && round < SIGNING_ROUNDS
          ? answers.flatMap(unsignedOf)
          : [];
      if (wanted.length > 0 && this.#o.sign) {
        for (const unsigned of wanted) offers.push(await this.#o.sign(unsigned));
        continue;
      }
      this.#answer(message, res, answers);
      return;
    }
  }

  #answer(message: Message, res: Response, answers: string[]): void {
    for (const answer of answers) {
      const parsed = tryJson(answer) as { jsonrpc?: string; result?: { protocolVersion?: string } };
      if (parsed?.jsonrpc === '2.0') {
        if (message.method === 'initialize' && parsed.result?.protocolVersion) {
          this.#version = parsed.result.protocolVersion;
        }
        this.#o.write(JSON.stringify(parsed));
      } else if (!res.ok) {
        // A problem+json refusal (401, 403…): the request still gets its answer.
        const problem = parsed as { detail?: string; title?: string } | null;
        const why = problem?.detail ?? problem?.title ?? answer.slice(0, 200);
        this.#answerFailure(message, -32001, `HTTP ${res.status}: ${why}`);
      }
    }
    if (answers.length === 0 && !res.ok) this.#answerFailure(message, -32001, `HTTP ${res.status}`);
  }

  async close(): Promise<void> {
    if (!this.#session) return;
    await fetch(this.#o.url, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${this.#o.token}`, 'Mcp-Session-Id': this.#session },
    }).catch(() => undefined);
  }

  /** Requests get a JSON-RPC error; notifications get nothing (a note on stderr). */
  #answerFailure(message: Message, code: number, text: string) {
    if (message.id === undefined || message.id === null) this.#o.log(`mcp: ${text}`);
    else this.#o.write(rpcError(message.id, code, text));
  }
}

/** The Wires a refused tool call asks to be signed (`wiresToSign` of its error's problem). */
function unsignedOf(answer: string): Record<string, unknown>[] {
  const rpc = tryJson(answer) as {
    result?: { isError?: boolean; content?: { type?: string; text?: string }[] };
  } | null;
  if (!rpc?.result?.isError) return [];
  const text = rpc.result.content?.find((c) => c.type === 'text')?.text ?? '';
  return wiresToSign((tryJson(text) as { problem?: Record<string, unknown> } | null)?.problem);
}

function rpcError(id: string | number | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

function sseData(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '');
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
