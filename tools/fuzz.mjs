#!/usr/bin/env node
// `npm run fuzz -- --runs 10000 [--seed N]`: the HTTP fuzzer (test/node/fuzz-http.test.ts)
// for a long run against wrangler dev. It prints its seed; pass it back to replay a failure.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string' } },
});
const seed = values.seed ?? String(Date.now() % 2_147_483_647);
console.log(`fuzz: ${values.runs} runs, seed ${seed}`);
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--project', 'node', 'test/node/fuzz-http.test.ts'],
  { stdio: 'inherit', env: { ...process.env, FUZZ_RUNS: values.runs, FUZZ_SEED: seed } },
);
process.exit(run.status ?? 1);
