import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../tools/mcp-conformance.mjs';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

/**
 * The official MCP conformance suite (a client nobody here wrote) against
 * `wrangler dev`: every server scenario that applies passes; the ones that
 * call the reference server's fixtures are the committed baseline
 * (test/mcp-conformance-baseline.yml), and one of those passing fails too.
 * The suite runs under Node 22 from the npm registry (tools/mcp-conformance.mjs).
 */

let server: DevServer;
let token = '';

beforeAll(async () => {
  server = await startDevServer();
  token = (await tokenFor(server, 'agent:conformance')) ?? '';
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('@modelcontextprotocol/conformance server', () => {
  it('passes every scenario outside the fixture baseline, DNS rebinding included', async () => {
    const run = await runConformance({ url: server.url, token, stdio: 'pipe' });
    const text = stripVTControlCharacters(run.output);
    expect(text).toMatch(/✓ server-initialize: \d+ passed, 0 failed/);
    expect(text).toMatch(/✓ tools-list: \d+ passed, 0 failed/);
    expect(text).toMatch(/✓ dns-rebinding-protection: 2 passed, 0 failed/);
    expect(run.code, text.slice(-3000)).toBe(0);
  }, 300_000);
});
