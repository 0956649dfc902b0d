#!/usr/bin/env node
// Builds the OpenAPI 3.1 document from the zod schemas the routes validate
// with (src/api/openapi/document.ts) and writes it out:
//   .local/static/reference/openapi.json  the document (GET /v1/openapi.json)
//   .local/static/reference/schema/…      the JSON Schemas of GET /v1/schema/…
//                           (src/modules/schemas.ts)
//   .local/static/reference/docs.html     the /docs page (src/api/openapi/docs-page/,
//                           CSS and JS inlined): static assets of the
//                           wirestream-static Worker (static/wrangler.toml), which
//                           the Worker forwards to (src/api/routes/static-files.ts)
//   src/api/openapi.gen.ts  the query names of each operation (the Worker's
//                           query rule, src/api/documented-query.ts) and the
//                           document as a string for the tests; the Worker
//                           bundles only the first
// At build time, not at run time: zod's JSON Schema export and the route
// table stay out of the Worker bundle (DESIGN.md, "OpenAPI, docs page").
// Runs from tools/build-client.mjs (npm install, wrangler's [build] step, so
// `npm start` and deploys) and before `npm test` (pretest). Writes only when
// the document changed, so `wrangler dev` does not rebuild in a loop.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => path.join(root, p);

/**
 * The route modules import Durable Object classes; their base class comes
 * from `cloudflare:workers`, which exists only in workerd. Building the
 * document only reads schemas, so a stand-in base class is enough.
 */
const workersShim = {
  name: 'cloudflare-workers-shim',
  setup(b) {
    b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: 'shim' }));
    b.onLoad({ filter: /.*/, namespace: 'shim' }, () => ({
      contents:
        'export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\n' +
        'export class WorkerEntrypoint extends DurableObject {}\n' +
        'export class RpcTarget {}\nexport const env = {};',
      loader: 'js',
    }));
  },
};

/** The document as an object (also used by tests that want it without the module). */
export async function openApiDocument() {
  const { version } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
  return buildTimeModule('src/api/openapi/document.ts', (m) => m.buildOpenApi(version));
}

/** The JSON Schema documents the API publishes, by static asset path (src/modules/schemas.ts). */
export async function schemaAssets() {
  return buildTimeModule('src/modules/schemas.ts', (m) => m.schemaAssets());
}

/** Bundles a TypeScript module of ours for Node, imports it and hands it to `use`. */
async function buildTimeModule(entry, use) {
  const dir = at('.local/openapi');
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `${path.basename(entry, '.ts')}-${process.pid}.mjs`);
  await build({
    entryPoints: [at(entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // zod and the rest from node_modules; only our TypeScript is bundled.
    packages: 'external',
    plugins: [workersShim],
    logLevel: 'warning',
  });
  try {
    return use(await import(pathToFileURL(outfile).href));
  } finally {
    rmSync(outfile, { force: true });
  }
}

/** The /docs page as one HTML string: nothing for the browser to fetch but the document. */
async function docsPage() {
  const dir = at('src/api/openapi/docs-page');
  const read = (name) => readFileSync(path.join(dir, name), 'utf8');
  const js = await transform(read('docs.js'), { loader: 'js', format: 'esm', minify: true });
  const css = await transform(read('docs.css'), { loader: 'css', minify: true });
  return read('index.html')
    .replace('/*CSS*/', () => css.code.trim())
    .replace('/*JS*/', () => js.code.trim());
}

/** Writes `file` unless it already holds `text` (a watching `wrangler dev` would loop). */
export function writeIfChanged(file, text) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/**
 * What the query rule needs of each operation: its path template, method and
 * query parameter names (`ticket` where the operation takes the ticket
 * credential), a few KiB instead of the whole document in the bundle.
 */
function queryTable(doc) {
  const rows = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const names = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      if (op.security?.some((s) => 'ticket' in s)) names.push('ticket');
      rows.push([template, method.toUpperCase(), names]);
    }
  }
  return rows;
}

export async function buildOpenApiModule() {
  const doc = await openApiDocument();
  const json = JSON.stringify(doc);
  writeIfChanged(at('.local/static/reference/openapi.json'), json);
  writeIfChanged(at('.local/static/reference/docs.html'), await docsPage());
  for (const [asset, text] of Object.entries(await schemaAssets())) {
    writeIfChanged(at(`.local/static/${asset}`), text);
  }
  const text = `// Generated by tools/build-openapi.mjs from src/api/openapi/: do not edit.
/** Each operation's path template, method and query parameter names (the query rule). */
export const DOCUMENTED_QUERIES: [path: string, method: string, query: string[]][] = ${JSON.stringify(queryTable(doc))};

/**
 * The OpenAPI 3.1 document, for tests. The Worker serves it as a static asset
 * (.local/static/reference/openapi.json) and never imports this string.
 */
export const OPENAPI_JSON: string = ${JSON.stringify(json)};
`;
  writeIfChanged(at('src/api/openapi.gen.ts'), text);
  return doc;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = await buildOpenApiModule();
  const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item)).length;
  console.log(
    `.local/static/reference/openapi.json: OpenAPI ${doc.openapi}, ${operations} operations`,
  );
}
