// @ts-check
// Bundles the MCP Worker (mcp/wrangler.toml, src/mcp/) with the same esbuild
// pass as a deploy (`wrangler deploy --dry-run`) into .local/mcp/worker.js.
// The workers tests run that file beside the Worker under test (vitest.config.ts,
// `miniflare.workers`): vitest-pool-workers bundles only the Worker under test,
// and its other Workers must be JavaScript already. Runs from the workers
// projects' global setup (test/global-setup-mcp-worker.ts), so every test run
// serves /mcp from the current source; `wrangler dev` (npm start) bundles the
// MCP Worker itself from mcp/wrangler.toml.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OFFLINE, ROOT, WRANGLER } from './lib/wrangler-local.mjs';

export const MCP_WORKER_SCRIPT = path.join(ROOT, '.local/mcp/worker.js');

export function buildMcpWorker() {
  const run = spawnSync(
    process.execPath,
    [
      WRANGLER,
      'deploy',
      '--dry-run',
      '-c',
      path.join(ROOT, 'mcp/wrangler.toml'),
      '--outdir',
      path.dirname(MCP_WORKER_SCRIPT),
    ],
    { cwd: ROOT, encoding: 'utf8', env: OFFLINE },
  );
  if (run.status !== 0) {
    throw new Error(`building the MCP Worker failed:\n${run.stdout}${run.stderr}`);
  }
  return MCP_WORKER_SCRIPT;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(buildMcpWorker());
}
