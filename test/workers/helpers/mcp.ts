import { SELF } from 'cloudflare:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tokenFor } from './auth';

/** The official SDK client (v2 line) against this Worker's /mcp, in either protocol era. */

export const MCP_URL = 'http://localhost/mcp';
export type Era = 'session' | 'sessionless';

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

export async function connect(
  era: Era,
  opts: { sub?: string; name?: string; token?: string } = {},
): Promise<Connected> {
  const token = opts.token ?? (await tokenFor({ sub: opts.sub ?? 'agent:quinn' }));
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: (input, init) => SELF.fetch(input as string, init),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: opts.name ?? 'cursor', version: '1.0.0' },
    era === 'sessionless' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** Connects as `connect` does, runs `use` with the client, and closes it whatever happens. */
export async function withMcp<T>(
  era: Era,
  use: (c: Connected) => Promise<T>,
  opts: Parameters<typeof connect>[1] = {},
): Promise<T> {
  const c = await connect(era, opts);
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

/** A tool call's structured result (the JSON text block must say the same). */
export async function call(c: Connected, name: string, args: Record<string, unknown> = {}) {
  const result = (await c.client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
  const text = JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown>;
  return { ...result, structuredContent: result.structuredContent ?? {}, text };
}

/** One raw JSON-RPC POST to /mcp (for what the SDK client would never send). */
/** The append_decision tool: records a decision in `workspace`'s log. */
export function appendDecision(c: Connected, workspace: string, title: string, body: string) {
  return call(c, 'append_decision', { workspace, title, body });
}

export function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
