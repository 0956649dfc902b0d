#!/usr/bin/env node
// Bundles the client SDK (src/client) and the CLI (src/cli) with esbuild, the
// bundler wrangler itself uses, so Node 20 can run them without a TypeScript
// loader and the dashboard can import the SDK as one browser module:
//   .local/client/index.mjs  the `wirestream/client` package export
//   .local/cli.mjs           what bin/wirestream.mjs runs
//   public/client.js         the SDK for the dashboard
//   .local/static/dashboard/ public/ with its modules (public/js/**) bundled into
//                            /js/dashboard.js: static assets of the wirestream-static
//                            Worker (static/wrangler.toml), which the Worker's
//                            dashboard routes forward to (src/api/routes/static-files.ts)
//   .local/static/reference/ the OpenAPI document and /docs (tools/build-openapi.mjs)
// Runs from `npm install` (prepare), wrangler's [build] step and on demand
// from bin/wirestream.mjs when a source file is newer than the bundle. Files
// are written only when their content changes, so `wrangler dev` watching
// public/ does not rebuild in a loop.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildOpenApiModule, writeIfChanged } from './build-openapi.mjs';

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
      write: false,
    }).then((out) => {
      for (const file of out.outputFiles) writeIfChanged(file.path, file.text);
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
  writeDashboard(await dashboardBundle());
  await buildOpenApiModule();
}

/**
 * The dashboard's modules (public/js/**: the shell, ./lib, one folder or file
 * per view, Preact and htm from node_modules) as the one served script, so a
 * page load is one request for them, not a waterfall of imports as deep as
 * the views are. The SDK stays its own file (/client.js, imported by URL).
 * Minified but with names kept, so a console error still names its function.
 */
async function dashboardBundle() {
  const out = await build({
    entryPoints: [at('public/js/dashboard.js')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    external: ['/client.js'],
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
  return out.outputFiles[0]?.text ?? '';
}

/**
 * The dashboard's files as the static assets of the wirestream-static Worker
 * (static/wrangler.toml), which the Worker forwards `/`, `/dashboard.css`,
 * `/client.js` and `/js/dashboard.js` to. Assets, not strings in the Worker:
 * they kept ~25 KiB of gzip in its bundle (BENCHMARKS.md, "Bundle size"). A
 * Worker of their own, not `[assets]` on this one: with assets, Miniflare
 * (`wrangler dev`, the tests, the bench) runs an RPC proxy and the asset
 * router in front of every API request and WebSocket frame (BENCHMARKS.md).
 */
function writeDashboard(script) {
  const out = at('.local/static/dashboard');
  const copy = (dir) => {
    for (const entry of readdirSync(at(dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      // The modules are served as the bundle (below), not one by one.
      if (rel === 'public/js' || rel.endsWith('.map')) continue;
      const target = path.join(out, rel.slice('public'.length));
      if (entry.isDirectory()) copy(rel);
      else {
        mkdirSync(path.dirname(target), { recursive: true });
        writeIfChanged(target, readFileSync(at(rel), 'utf8'));
      }
    }
  };
  copy('public');
  mkdirSync(path.join(out, 'js'), { recursive: true });
  writeIfChanged(path.join(out, 'js/dashboard.js'), script);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildClient();
}
