import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentKeyFromJwk, generateAgentKeyJwk, signWire, WirestreamClient } from '../../src/client';
import { devServerForFile } from '../support/dev-server';
import { runScript } from '../support/run-script';

/**
 * `wirestream mcp` as an MCP host runs it: a child process on stdio, fed the
 * seed's own handshake, in both framings the seed's contract accepts, against
 * a `wrangler dev`. Answers come back one JSON object per line.
 */

const BIN = path.join(path.resolve(import.meta.dirname, '../..'), 'bin/wirestream.mjs');
const SUB = `agent:stdio-${Date.now().toString(36)}`;
const dev = devServerForFile(SUB, 120_000);

/** Runs the bridge with `input` on stdin until it exits; its stdout lines, parsed. */
async function bridge(input: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const run = await runScript(
    BIN,
    ['mcp', '--url', dev.server.url, '--token', dev.token ?? '', ...args],
    { ...process.env, WIRESTREAM_TOKEN: '', WIRESTREAM_KEY: '', ...env },
    input,
  );
  const { code, stdout: raw, stderr: err } = run;
  try {
    const lines = raw
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code, lines, raw, err };
  } catch (error) {
    throw new Error(`stdout is not JSON lines: ${raw}\n${err}\n${error}`);
  }
}

const stream = `project:stdio-${Date.now().toString(36)}`;
const MESSAGES = [
  // The seed's handshake, as its round-trip example writes it.
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'cursor' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'ping' },
  {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: {
      name: 'append_wire',
      arguments: { stream_id: stream, type: 'review.concern', payload: { concern: 'stdio' } },
    },
  },
  { jsonrpc: '2.0', id: 4, method: 'tools/list' },
];

function expectAnswers(lines: Record<string, unknown>[]) {
  // One line per request, none for the notification, in order.
  expect(lines.map((l) => l.id)).toEqual([1, 2, 3, 4]);
  expect(lines[0]).toMatchObject({
    result: { protocolVersion: '2024-11-05', serverInfo: { name: 'wirestream', version: '1.0.0' } },
  });
  expect(lines[1]).toMatchObject({ result: {} });
  const call = (lines[2] as { result: { structuredContent: Record<string, unknown> } }).result;
  expect(call.structuredContent).toMatchObject({ haid: `${SUB}/cursor` });
  const tools = (lines[3] as { result: { tools: { name: string }[] } }).result.tools;
  // Every module's tools, seed 002's run-document tools among them.
  expect(tools.map((t) => t.name)).toEqual(
    expect.arrayContaining(['append_wire', 'make_claim', 'message_actor', 'request_conductor']),
  );
}

describe('npx wirestream mcp (stdio)', () => {
  it('answers newline-delimited JSON-RPC line by line, with the identity of initialize', async () => {
    const input = MESSAGES.map((m) => JSON.stringify(m)).join('\n');
    const run = await bridge(`${input}\n`);
    expect(run.code).toBe(0);
    expectAnswers(run.lines);
  });

  it('reads Content-Length framed input (LSP style) and still writes lines', async () => {
    const input = MESSAGES.map((m) => {
      const body = JSON.stringify(m);
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    }).join('');
    const run = await bridge(input);
    expect(run.code).toBe(0);
    expectAnswers(run.lines);
    // The Wire appended by call 3 in each run is on the stream: two in all.
    const res = await fetch(`${dev.server.url}/v1/streams/${encodeURIComponent(stream)}/wires`, {
      headers: { Authorization: `Bearer ${dev.token ?? ''}` },
    });
    const wires = ((await res.json()) as { wires: { sender: string }[] }).wires;
    expect(wires.map((w) => w.sender)).toEqual([SUB, SUB]);
  });

  it("runs the seed's round trip: claim via MCP on stdio, see it over REST with the cursor HAID", async () => {
    // The seed's two lines, exactly (bin/heimdall-ledger-mcp's example), against workspace `default`.
    const input = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"cursor"}}}',
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"make_claim","arguments":{"surfaces":["seed/${SUB.slice(6)}/**"],"task":"T-9"}}}`,
    ].join('\n');
    const run = await bridge(`${input}\n`);
    expect(run.lines.map((l) => l.id)).toEqual([1, 3]);
    const res = await fetch(`${dev.server.url}/v1/workspaces/default/claims`, {
      headers: { Authorization: `Bearer ${dev.token ?? ''}` },
    });
    const { claims } = (await res.json()) as { claims: { task_ref: string; haid: string }[] };
    expect(claims.find((c) => c.haid === `${SUB}/cursor`)?.task_ref).toBe(`T-9@${SUB}/cursor`);
  });

  it('answers each request with a JSON-RPC error when the token is refused', async () => {
    const child = await new Promise<{ lines: Record<string, unknown>[] }>((resolve) => {
      const p = spawn(process.execPath, [BIN, 'mcp', '--url', dev.server.url, '--token', 'nope']);
      let raw = '';
      p.stdout.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      p.on('exit', () =>
        resolve({
          lines: raw
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        }),
      );
      p.stdin.end(`${JSON.stringify(MESSAGES[0])}\n`);
    });
    expect(child.lines).toHaveLength(1);
    expect(child.lines[0]).toMatchObject({
      id: 1,
      error: { message: expect.stringContaining('HTTP 401') },
    });
  });

  // Last: from here on the agent has a registered key.
  it('signs, with WIRESTREAM_KEY, the Wires its tools build for an agent with keys; without it, says why', async () => {
    const jwk = await generateAgentKeyJwk();
    const key = await agentKeyFromJwk(jwk);
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'wirestream-key-')), 'agent.jwk');
    writeFileSync(keyFile, JSON.stringify(jwk), { mode: 0o600 });
    const sdk = new WirestreamClient({
      baseUrl: dev.server.url,
      token: dev.token ?? '',
      sender: SUB,
    });
    const registration = await signWire(
      {
        wire: '1.1' as const,
        wire_id: `key-${Date.now().toString(36)}`,
        stream_id: SUB,
        sender: SUB,
        ts: new Date().toISOString(),
        type: 'agent.key.registered',
        payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
        correlation_id: null,
        causation_id: null,
      },
      key,
    );
    await sdk.http.request('POST', `/v1/streams/${encodeURIComponent(SUB)}/wires`, {
      body: registration,
    });
    const keyed = `project:stdio-keyed-${Date.now().toString(36)}`;
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      });
    const input = [
      JSON.stringify(MESSAGES[0]),
      call(2, 'append_wire', {
        stream_id: keyed,
        type: 'review.concern',
        payload: { concern: 'a' },
      }),
      call(3, 'make_claim', { surfaces: [`keyed/${SUB.slice(6)}/**`], task: 'T-10' }),
    ].join('\n');

    // Without the key file the tool answers with the refusal, naming what to do.
    const refused = await bridge(`${input}\n`);
    const error = (
      refused.lines[1] as { result: { isError?: boolean; content: { text: string }[] } }
    ).result;
    expect(error.isError).toBe(true);
    expect(error.content[0]?.text).toContain('has registered signing keys');
    expect(error.content[0]?.text).toContain('Wirestream-Signatures');

    const signed = await bridge(`${input}\n`, [], { WIRESTREAM_KEY: keyFile });
    expect(signed.lines.map((l) => l.id)).toEqual([1, 2, 3]);
    for (const line of signed.lines.slice(1))
      expect((line as { result: { isError?: boolean } }).result.isError).toBeUndefined();
    const read = async (stream: string) => {
      const res = await fetch(`${dev.server.url}/v1/streams/${encodeURIComponent(stream)}/wires`, {
        headers: { Authorization: `Bearer ${dev.token ?? ''}` },
      });
      return ((await res.json()) as { wires: { sender: string; sig?: { kid: string } }[] }).wires;
    };
    expect((await read(keyed)).map((w) => w.sig?.kid)).toEqual([key.kid]);
    const claims = (await read('surfaces:default')).filter((w) => w.sender === SUB);
    expect(claims.at(-1)?.sig?.kid).toBe(key.kid);
  });
});
