#!/usr/bin/env node
// Bundles the client SDK (src/client) and the CLI (src/cli) with esbuild, the
// bundler wrangler itself uses, so Node 20 can run them without a TypeScript
// loader and the dashboard can import the SDK as one browser module:
//   .local/client/index.mjs  the `wirestream/client` package export
//   .local/cli.mjs           what bin/wirestream.mjs runs
//   public/client.js         the SDK for the dashboard (served as a static asset)
// Runs from `npm install` (prepare), wrangler's [build] step and on demand
// from bin/wirestream.mjs when a source file is newer than the bundle.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => path.join(root, p);

export async function buildClient() {
  mkdirSync(at('.local/client'), { recursive: true });
  const common = { bundle: true, format: 'esm', target: 'es2022', logLevel: 'warning' };
  await Promise.all([
    build({
      ...common,
      entryPoints: [at('src/client/index.ts')],
      outfile: at('.local/client/index.mjs'),
      platform: 'neutral',
    }),
    build({
      ...common,
      entryPoints: [at('src/client/index.ts')],
      outfile: at('public/client.js'),
      platform: 'browser',
      minify: true,
      sourcemap: 'linked',
    }),
    build({
      ...common,
      entryPoints: [at('src/cli/main.ts')],
      outfile: at('.local/cli.mjs'),
      platform: 'node',
      // Resolved from node_modules at run time (ws is a Node-only dependency).
      packages: 'external',
    }),
  ]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildClient();
}
