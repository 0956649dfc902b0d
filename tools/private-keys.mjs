#!/usr/bin/env node
// `npm run private-keys`: private payloads' keys on a running Wirestream
// (README, Private payloads). Lists the private projects, the KEK ids of
// PAYLOAD_KEK (current first) and each project's data key, wrapped, with the
// KEK that wraps it.
//
//   npm run private-keys                     list (GET /v1/admin/private-keys)
//   npm run private-keys -- --new-kek ID     print a fresh PAYLOAD_KEK entry "ID:<base64>"
//   npm run private-keys -- --rewrap         re-wrap every data key under the current KEK
//   npm run private-keys -- --url https://wirestream.example.workers.dev
//
// The admin credential comes from WIRESTREAM_ADMIN_TOKEN, else from
// ADMIN_TOKEN in .dev.vars (written by npm start).
import { randomBytes } from 'node:crypto';
import { adminToken } from './lib/admin-token.mjs';
import { commandLine, printHeaderHelp } from './lib/command-line.mjs';

const USAGE = 'usage: npm run private-keys -- [--url URL] [--rewrap | --new-kek ID]';
const { values } = commandLine(
  {
    options: {
      url: { type: 'string', default: process.env.WIRESTREAM_URL ?? 'http://127.0.0.1:8787' },
      rewrap: { type: 'boolean', default: false },
      'new-kek': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  },
  USAGE,
);

if (values.help) printHeaderHelp(import.meta.url, 13);

const kid = values['new-kek'];
if (kid !== undefined) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(kid)) {
    console.error(
      `error: --new-kek: a key id is 1-64 of A-Z a-z 0-9 . _ -, got "${kid}"\n\n${USAGE}`,
    );
    process.exit(2);
  }
  console.log(`${kid}:${randomBytes(32).toString('base64')}`);
  process.exit(0);
}

const path = values.rewrap ? '/v1/admin/private-keys/rewrap' : '/v1/admin/private-keys';
const res = await fetch(`${values.url.replace(/\/$/, '')}${path}`, {
  method: values.rewrap ? 'POST' : 'GET',
  headers: { Authorization: `Bearer ${adminToken()}` },
}).catch((error) => {
  console.error(`cannot reach ${values.url}: ${error.message} (is npm start running?)`);
  process.exit(1);
});
const body = await res.json().catch(() => ({}));
if (!res.ok) {
  console.error(`refused: ${res.status} ${body.detail ?? ''}`);
  process.exit(1);
}
if (values.rewrap) {
  console.log(
    `under ${body.kek_kid}: ${body.rewrapped.length} re-wrapped, ${body.current} already current`,
  );
  for (const f of body.failed) console.error(`  ${f.kid}: ${f.detail}`);
  if (body.failed.length > 0) {
    console.error('keep the old KEK in PAYLOAD_KEK until these are re-wrapped');
    process.exitCode = 1;
  }
} else {
  for (const p of body.problems) console.error(`problem: ${p}`);
  console.log(`KEKs (current first): ${body.kek_kids.join(', ') || '(none)'}`);
  for (const p of body.projects)
    console.log(
      `project ${p.name}: streams ${p.streams.join(' ') || '-'}; correlations ${p.correlations.join(' ') || '-'}`,
    );
  for (const k of body.keys)
    console.log(`data key ${k.kid} (${k.project}) wrapped under ${k.kek_kid}: ${k.wrapped}`);
}
