import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../tools/mcp-conformance.mjs';
import { devServerForFile } from '../support/dev-server';

/**
 * The official MCP conformance suite (a client nobody here wrote) against
 * `wrangler dev`: every server scenario that applies passes; the ones that
 * call the reference server's fixtures are the committed baseline
 * (test/mcp-conformance-baseline.yml), and one of those passing fails too.
 * The suite runs under Node 22 from the npm registry (tools/mcp-conformance.mjs).
 */

const dev = devServerForFile('agent:conformance', 120_000);

describe('@modelcontextprotocol/conformance server', () => {
  it('passes every scenario outside the fixture baseline, DNS rebinding included', async () => {
    const run = await runConformance({
      url: dev.server.url,
      token: dev.token ?? '',
      stdio: 'pipe',
    });
    const text = stripVTControlCharacters(run.output);
    expect(text).toMatch(/✓ server-initialize: \d+ passed, 0 failed/);
    expect(text).toMatch(/✓ tools-list: \d+ passed, 0 failed/);
    expect(text).toMatch(/✓ dns-rebinding-protection: 2 passed, 0 failed/);
    expect(run.code, text.slice(-3000)).toBe(0);
  }, 300_000);
});
