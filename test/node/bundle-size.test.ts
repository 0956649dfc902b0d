import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFFLINE, ROOT, WRANGLER } from '../../tools/lib/wrangler-local.mjs';

/** The budget of issue 27: a Worker within 500 KiB of gzip. */
const BUDGET_KIB = 500;

/**
 * The gzip size `wrangler deploy --dry-run` reports for the Worker of
 * `config`, and whether its code speaks MCP (`tools/call`, a method name of
 * the MCP SDK's schemas).
 */
function bundleOf(config: string): { gzip: number; speaksMcp: boolean } {
  const out = mkdtempSync(path.join(tmpdir(), 'wirestream-bundle-'));
  try {
    const run = spawnSync(
      process.execPath,
      [WRANGLER, 'deploy', '--dry-run', '-c', config, '--outdir', out],
      { cwd: ROOT, env: OFFLINE, encoding: 'utf8' },
    );
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    // "Total Upload: 2089.51 KiB / gzip: 488.86 KiB"
    const gzip = /Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(output)?.[1];
    expect(gzip, output).toBeDefined();
    const code = readdirSync(out)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(path.join(out, f), 'utf8'))
      .join('\n');
    return { gzip: Number(gzip), speaksMcp: code.includes('"tools/call"') };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('the Worker bundles', () => {
  it(`stay within ${BUDGET_KIB} KiB gzip each, as wrangler deploy measures them`, () => {
    const api = bundleOf('wrangler.toml');
    const mcp = bundleOf('mcp/wrangler.toml');
    console.log(
      `API Worker ${api.gzip} KiB gzip, MCP Worker ${mcp.gzip} KiB gzip (budget ${BUDGET_KIB} KiB each)`,
    );
    expect(api.gzip).toBeLessThanOrEqual(BUDGET_KIB);
    expect(mcp.gzip).toBeLessThanOrEqual(BUDGET_KIB);
    // The MCP SDK lives in the MCP Worker only: that is what the split is for
    // (src/api/mcp/gateway.ts); an import of it from the API's code brings it back.
    expect(mcp.speaksMcp).toBe(true);
    expect(api.speaksMcp).toBe(false);
  });
});
