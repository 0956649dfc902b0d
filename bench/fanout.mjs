#!/usr/bin/env node
// `node bench/fanout.mjs [--worktree | --src DIR] [--subs 1000] [--seconds 4] [--system S]
//   [--ack-every N --ack-delay MS]`: scenario 4b alone (one stream, N subscribers,
// open loop of 20 appends/s) in a fresh instance, with the Hedera stand-in —
// for comparing fan-out before/after a change without the whole `npm run bench`.
// Prints delivery p50/p99 (append's intended send time → last subscriber) and
// workerd CPU per append.
import path from 'node:path';
import { build, snapshotHead } from './lib/build.mjs';
import { measure } from './lib/measure.mjs';
import { startStandin } from './lib/standin.mjs';
import { ROOT } from './lib/targets.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const srcDir = args.includes('--src')
  ? path.resolve(opt('--src'))
  : args.includes('--worktree')
    ? ROOT
    : snapshotHead().dir;
const system = opt('--system', 'wirestream');
const ackPolicy = args.includes('--ack-every')
  ? { ackEvery: Number(opt('--ack-every')), ackDelayMs: Number(opt('--ack-delay', 1000)) }
  : undefined;

const standin = await startStandin(srcDir);
const bindings = {
  RATE_PER_SECOND: '1000000',
  RATE_BURST: '1000000',
  WS_MAX_SUBSCRIBERS: '2000',
  ...(standin ? { HEDERA_LOCAL_URL: standin.url } : {}),
};
const bundle = await build('wirestream', { srcDir });
try {
  const r = await measure({
    id: 'fanout',
    system,
    builds: { wirestream: bundle },
    bindings,
    streams: 1,
    clients: 0,
    subscribers: Number(opt('--subs', 1000)),
    rate: 20,
    openMs: Number(opt('--seconds', 4)) * 1000,
    warmMs: 500,
    ackPolicy,
  });
  const f = (v) => (Number.isFinite(v) ? v.toFixed(0) : String(v));
  console.log(
    JSON.stringify({
      src: srcDir,
      system,
      ackPolicy: ackPolicy ?? 'default',
      subscribers: r.subscribers,
      delivered: r.delivered,
      p50: f(r.delivery?.p50),
      p99: f(r.delivery?.p99),
      max: f(r.delivery?.max),
      cpuUsPerAppend: f(r.openCpuPerAppendUs),
      appendP99: f(r.openLatency?.p99),
      closes: r.closes,
    }),
  );
} finally {
  standin?.stop();
}
