#!/usr/bin/env node
// `npm start`: everything local, no network. Applies the local D1 migrations,
// then serves the Worker (and its Durable Objects) on http://127.0.0.1:8787.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { ensureDevSecrets, printTokensWhenReady } from './dev-tokens.mjs';
import { startStandin } from './hedera-standin/index.mjs';

const offline = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
};

if (!existsSync('.dev.vars')) {
  copyFileSync('.dev.vars.example', '.dev.vars');
  console.log('created .dev.vars from .dev.vars.example');
}
const secrets = ensureDevSecrets('.dev.vars');

const migrate = spawnSync('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local'], {
  env: { ...offline, CI: 'true' },
  stdio: 'inherit',
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

// The local Hedera network the Worker anchors to; its ledger survives restarts.
const hedera = await startStandin({ port: 5551, dataFile: '.local/hedera.json' });
console.log(`hedera stand-in on ${hedera.url} (ledger .local/hedera.json)`);

const dev = spawn(
  'npx',
  [
    'wrangler',
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    '8787',
    '--var',
    `HEDERA_LOCAL_URL:${hedera.url}`,
    // Exposes /__scheduled: wrangler dev does not fire Cron Triggers itself.
    '--test-scheduled',
  ],
  { env: offline, stdio: 'inherit' },
);
// The HCS listener's Cron Trigger (wrangler.toml), once a minute as deployed.
setInterval(() => {
  fetch('http://127.0.0.1:8787/__scheduled?cron=*+*+*+*+*').catch(() => {});
}, 60_000).unref();
printTokensWhenReady('http://127.0.0.1:8787', secrets);
const stop = () => dev.kill('SIGINT');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
dev.on('exit', (code) => hedera.close().then(() => process.exit(code ?? 0)));
