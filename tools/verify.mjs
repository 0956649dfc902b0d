#!/usr/bin/env node
// `npm run verify -- <topic_id>`: audits one HCS topic without trusting the
// coordinator. Recomputes the running-hash chain from mirror data alone and,
// given the coordinator's URL and a read token, checks that every Wire it
// reports as anchored there is on the topic byte for byte (canonical JSON of
// the Wire it serves). Prints a report; exits 1 on any finding.
//
//   npm run verify -- 0.0.1001                       (local stand-in mirror only)
//   npm run verify -- 0.0.1001 --api http://127.0.0.1:8787 --token $TOKEN
//   npm run verify -- 0.0.4567 --network testnet --api https://… --token …
//   options: --mirror <url>  --json
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { commandLine } from './lib/command-line.mjs';

const MIRRORS = {
  local:
    process.env.WIRESTREAM_MIRROR_URL ?? process.env.HEDERA_LOCAL_URL ?? 'http://127.0.0.1:5551',
  testnet: 'https://testnet.mirrornode.hedera.com',
  mainnet: 'https://mainnet-public.mirrornode.hedera.com',
  previewnet: 'https://previewnet.mirrornode.hedera.com',
};

const USAGE =
  'usage: npm run verify -- <topic_id> [--network local|testnet|mainnet|previewnet] [--mirror url] [--api url --token t] [--json]';
const { values, positionals } = commandLine(
  {
    allowPositionals: true,
    options: {
      network: { type: 'string', default: process.env.HEDERA_NETWORK ?? 'local' },
      mirror: { type: 'string' },
      api: { type: 'string' },
      token: { type: 'string', default: process.env.WIRESTREAM_TOKEN },
      json: { type: 'boolean', default: false },
    },
  },
  USAGE,
);
const topicId = positionals[0];
if (!topicId || !/^\d+\.\d+\.\d+$/.test(topicId)) {
  console.error(USAGE);
  process.exit(2);
}
const mirror = (values.mirror ?? MIRRORS[values.network] ?? '').replace(/\/$/, '');
if (!mirror) {
  console.error(`unknown network "${values.network}"`);
  process.exit(2);
}

// The same TypeScript the Worker runs, bundled for Node on the fly.
const ROOT = path.resolve(import.meta.dirname, '..');
const out = mkdtempSync(path.join(tmpdir(), 'wirestream-verify-'));
const outfile = path.join(out, 'verify-topic.mjs');
await build({
  entryPoints: [path.join(ROOT, 'src/anchor/verify-topic.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile,
  logLevel: 'error',
});
const { verifyTopic } = await import(pathToFileURL(outfile).href);
rmSync(out, { recursive: true, force: true });

const apiBase = values.api?.replace(/\/$/, '');
const api = apiBase
  ? (p) =>
      fetch(`${apiBase}${p}`, {
        headers: values.token ? { Authorization: `Bearer ${values.token}` } : {},
      })
  : null;

let report;
try {
  report = await verifyTopic(mirror, topicId, api);
} catch (error) {
  const unreachable = error instanceof TypeError && error.message === 'fetch failed';
  console.error(
    unreachable
      ? `verify failed: cannot reach the mirror node at ${mirror}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}: is the local stand-in running (npm start)? Pass --mirror <url> or --network, or set WIRESTREAM_MIRROR_URL.`
      : `verify failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(2);
}
if (values.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`topic ${report.topic_id} on ${mirror}`);
  console.log(
    `  ${report.messages} messages (${report.whole_messages} whole), last sequence ${report.last_sequence_number}`,
  );
  console.log(
    `  running-hash chain recomputed from the mirror data: ${report.findings.some((f) => f.kind !== 'missing' && f.kind !== 'content-mismatch') ? 'BROKEN' : 'intact'}`,
  );
  console.log(
    api
      ? `  ${report.anchors_checked} Wires the coordinator reports anchored here checked byte for byte`
      : '  coordinator not checked (pass --api and --token)',
  );
  for (const f of report.findings)
    console.log(`  ✗ ${f.kind} at ${f.sequence_number ?? '-'}: ${f.detail}`);
  console.log(report.ok ? 'OK' : `FAILED: ${report.findings.length} finding(s)`);
}
process.exit(report.ok ? 0 : 1);
