#!/usr/bin/env node
// `npx wirestream …`: runs the bundled CLI, rebuilding it first when a source
// file changed since the last build (the CLI is TypeScript; Node 20 cannot
// run .ts itself).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, '.local/cli.mjs');

function newestSource() {
  let newest = 0;
  for (const dir of ['src/cli', 'src/client', 'src/protocol', 'src/anchor', 'src/anchor/log']) {
    const full = path.join(root, dir);
    if (!existsSync(full)) continue;
    for (const name of readdirSync(full))
      newest = Math.max(newest, statSync(path.join(full, name)).mtimeMs);
  }
  return newest;
}

if (!existsSync(bundle) || statSync(bundle).mtimeMs < newestSource()) {
  const { buildClient } = await import(
    pathToFileURL(path.join(root, 'tools/build-client.mjs')).href
  );
  await buildClient();
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
