#!/usr/bin/env node
// `node bench/gsd-webhooks.mjs [--worktree | --src DIR] [--events 500]`: GSD event
// intake (POST /v1/projects/{id}/events → 201) while a project's custom:
// webhook receiver is healthy vs while it hangs, side by side in one run.
// Two projects map task:completed to `custom:hook`, each to its own endpoint
// on a local receiver: one answers 204 at once, the other never answers. One
// client posts to them alternately (closed loop), so both see the same
// machine; prints p50/p99/max of each and how many deliveries the hanging
// endpoint has pending (they wait in the outbox, never in the request path).
import { createServer } from 'node:http';
import path from 'node:path';
import { numberOption, option } from './lib/args.mjs';
import { benchHeaders } from './lib/auth.mjs';
import { build, snapshotHead } from './lib/build.mjs';
import { start } from './lib/runtime.mjs';
import { startStandin } from './lib/standin.mjs';
import { fmt, summarize } from './lib/stats.mjs';
import { BENCH_BINDINGS, ROOT } from './lib/targets.mjs';

const args = process.argv.slice(2);
const srcDir = args.includes('--src')
  ? path.resolve(option(args, '--src'))
  : args.includes('--worktree')
    ? ROOT
    : snapshotHead().dir;
const events = numberOption(args, '--events', 500);
const WARMUP = 50;

// The receiver: /ok answers 204 at once, /hang holds every request open.
const held = new Set();
const receiver = createServer((req, res) => {
  req.resume();
  if (req.url?.startsWith('/hang')) held.add(res);
  else req.on('end', () => res.writeHead(204).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookBase = `http://127.0.0.1:${receiver.address().port}`;

const standin = await startStandin(srcDir);
const bundle = await build('wirestream', { srcDir });
const rt = await start(bundle, {
  bindings: {
    ...BENCH_BINDINGS,
    WEBHOOK_ALLOW_LOCAL_HTTP: 'true',
    ...(standin ? { HEDERA_LOCAL_URL: standin.url } : {}),
  },
});
const executor = await benchHeaders('agent:gsd-bench');
const coordinator = await benchHeaders('coordinator:gsd-bench');
const run = Date.now().toString(36);

async function call(method, url, headers, body) {
  const res = await fetch(new URL(url, rt.origin), {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function project(mode) {
  const id = `bench-${mode}-${run}`;
  await call('PUT', `/v1/projects/${id}/config`, coordinator, {
    event_handlers: { 'task:completed': ['custom:hook'] },
  });
  await call('POST', `/v1/projects/${id}/webhooks`, coordinator, {
    id: 'hook',
    url: `${hookBase}/${mode}`,
  });
  return id;
}

const projects = {};
const samples = { healthy: [], hanging: [] };
let task = 0;
async function post(which, record) {
  task += 1;
  const event = {
    type: 'task:completed',
    plan: '01-01',
    task,
    commit: 'abc1234',
    timestamp: new Date().toISOString(),
  };
  const t0 = performance.now();
  await call('POST', `/v1/projects/${projects[which]}/events`, executor, event);
  if (record) samples[which].push(performance.now() - t0);
}

try {
  projects.healthy = await project('ok');
  projects.hanging = await project('hang');
  for (let i = 0; i < WARMUP; i++) {
    await post('healthy', false);
    await post('hanging', false);
  }
  for (let i = 0; i < events; i++) {
    // Alternate which goes first, so neither always follows the other.
    const order = i % 2 === 0 ? ['healthy', 'hanging'] : ['hanging', 'healthy'];
    for (const which of order) await post(which, true);
  }
  const pending = await call(
    'GET',
    `/v1/projects/${projects.hanging}/webhooks/hook/deliveries?status=pending`,
    coordinator,
  );
  console.log(`GSD intake latency, ${events} events each, receiver healthy vs hanging (ms)`);
  console.log('receiver   p50     p99     max     n');
  for (const which of ['healthy', 'hanging']) {
    const s = summarize(samples[which]);
    console.log(
      `${which.padEnd(9)}  ${fmt(s.p50).padEnd(6)}  ${fmt(s.p99).padEnd(6)}  ${fmt(s.max).padEnd(6)}  ${s.n}`,
    );
  }
  console.log(
    `hanging endpoint: ${pending.messages.length} deliveries pending in the outbox, ${held.size} requests held open by the receiver`,
  );
} finally {
  for (const res of held) res.destroy();
  receiver.close();
  await rt.dispose();
  standin?.stop();
}
