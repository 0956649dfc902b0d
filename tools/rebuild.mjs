#!/usr/bin/env node
// `npm run rebuild`: replays every HCS topic from the mirror node into the D1
// read models, by calling POST /v1/admin/rebuild on a running Wirestream
// (npm start) and printing its progress as it streams in. The rebuild runs in
// the coordinator: stopping this command does not stop it (--follow resumes).
//
//   npm run rebuild                          every read model and wire_events
//   npm run rebuild -- --stale               only models whose reducer_version changed
//   npm run rebuild -- --models task_run_state,agent_runtime_state
//   npm run rebuild -- --follow              follow the running (or last) rebuild
//   npm run rebuild -- --url https://wirestream.example.workers.dev
//
// Log-mode topics: the entries come from the R2 archive, each verified against the
// signed checkpoints on HCS; one that is not is printed as REFUSED (exit code 3).
// The admin credential comes from WIRESTREAM_ADMIN_TOKEN, else from
// ADMIN_TOKEN in .dev.vars (written by npm start).
import { adminToken } from './lib/admin-token.mjs';
import { commandLine, printHeaderHelp } from './lib/command-line.mjs';

const { values } = commandLine(
  {
    options: {
      url: { type: 'string', default: process.env.WIRESTREAM_URL ?? 'http://127.0.0.1:8787' },
      models: { type: 'string' },
      stale: { type: 'boolean', default: false },
      follow: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  },
  'usage: npm run rebuild -- [--url URL] [--models a,b | --stale | --follow]',
);

if (values.help) printHeaderHelp(import.meta.url, 16);

const body = values.stale
  ? { models: 'stale' }
  : values.models
    ? { models: values.models.split(',').map((m) => m.trim()) }
    : undefined;

const res = await fetch(`${values.url.replace(/\/$/, '')}/v1/admin/rebuild`, {
  method: values.follow ? 'GET' : 'POST',
  headers: {
    Authorization: `Bearer ${adminToken()}`,
    ...(body && !values.follow ? { 'Content-Type': 'application/json' } : {}),
  },
  ...(body && !values.follow ? { body: JSON.stringify(body) } : {}),
}).catch((error) => {
  console.error(`cannot reach ${values.url}: ${error.message} (is npm start running?)`);
  process.exit(1);
});

if (!res.ok) {
  const text = await res.text();
  let detail = text;
  try {
    detail = JSON.parse(text).detail ?? text;
  } catch {}
  console.error(`rebuild refused: ${res.status} ${detail}`);
  if (res.status === 409) console.error('follow it with: npm run rebuild -- --follow');
  process.exit(1);
}

function show(p) {
  switch (p.phase) {
    case 'start':
      return `rebuilding ${p.models.join(', ')}${p.full ? ' and wire_events' : ''} from ${p.topics.length} topic(s): ${p.topics.join(', ') || '(none known)'}`;
    case 'read':
      return `  read ${p.topic}: ${p.messages} messages, ${p.wires} Wires${p.skipped ? `, ${p.skipped} not Wires` : ''}`;
    case 'write':
      return `  wrote ${p.streams}/${p.streams_total} streams (${p.wires} Wires)`;
    case 'retry':
      return `  step failed (${p.detail}); retry ${p.attempt}`;
    case 'refused': {
      // Log mode: an archived entry the HCS checkpoints do not vouch for (never projected).
      process.exitCode = 3;
      const leaves =
        p.leaf_index === null
          ? 'a checkpoint'
          : p.to_leaf === undefined
            ? `leaf ${p.leaf_index}${p.wire_id ? ` (${p.wire_id})` : ''}`
            : `leaves ${p.leaf_index}-${p.to_leaf}`;
      return `  REFUSED ${leaves} of ${p.topic} (checkpoint at HCS seq ${p.checkpoint_seq}): ${p.reason}`;
    }
    case 'catch-up':
      return `  caught up ${p.wires} Wire(s) not on HCS yet`;
    case 'done':
      return `done: ${p.wires} Wires in ${p.streams} streams from ${p.topics} topic(s) in ${p.seconds.toFixed(2)} s (${p.wires_per_second} Wires/s)${p.refused ? `; REFUSED ${p.refused} (archived entries or checkpoints: the lines above)` : ''}${p.ahead_of_mirror ? `; kept ${p.ahead_of_mirror} anchored Wire(s) the mirror does not show yet` : ''}`;
    case 'error':
      process.exitCode = 1;
      return `rebuild failed: ${p.detail}`;
    default:
      return JSON.stringify(p);
  }
}

const decoder = new TextDecoder();
let buffer = '';
for await (const chunk of res.body) {
  buffer += decoder.decode(chunk, { stream: true });
  let nl = buffer.indexOf('\n');
  while (nl !== -1) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (line) console.log(show(JSON.parse(line)));
    nl = buffer.indexOf('\n');
  }
}
