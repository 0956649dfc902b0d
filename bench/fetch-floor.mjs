#!/usr/bin/env node
// `node bench/fetch-floor.mjs [--fetches N] [--reps R]`: the workerd CPU one
// outbound `fetch` costs under Miniflare, the floor under every HCS submit
// (the SDK's WebClient sends each transaction as one gRPC-web POST). A bare
// Worker POSTs a submit-sized body (520 B) to a Node HTTP server on loopback
// that answers 60 B, one request after another; the figure is workerd's
// user + system time divided by the fetches. Compare it with the ceiling's
// whole append in `BENCHMARKS.md` (bench/limits.md explains why it matters).
import { createServer } from 'node:http';
import { Miniflare } from 'miniflare';
import { numberOption } from './lib/args.mjs';
import { cpuMicros, workerdChildren } from './lib/proc.mjs';
import { median } from './lib/stats.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => numberOption(args, name, fallback);
const fetches = opt('--fetches', 2000);
const reps = opt('--reps', 3);

const WORKER = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n'));
    const target = url.searchParams.get('target');
    const body = new Uint8Array(520);
    for (let i = 0; i < n; i++) {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' },
        body,
      });
      await res.arrayBuffer();
    }
    return new Response(String(n));
  },
};`;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/grpc-web+proto' });
    res.end(Buffer.alloc(60));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const target = `http://127.0.0.1:${server.address().port}/proto.ConsensusService/submitMessage`;

const before = new Set(workerdChildren());
const mf = new Miniflare({ modules: true, script: WORKER, compatibilityDate: '2026-05-01' });
await mf.ready;
const pid = workerdChildren().find((p) => !before.has(p));
const run = async (n) => {
  const res = await mf.dispatchFetch(`http://floor/?n=${n}&target=${encodeURIComponent(target)}`);
  if ((await res.text()) !== String(n)) throw new Error('the fetch loop did not finish');
};

await run(200); // warm-up: JIT, the connection pool
const perFetch = [];
for (let rep = 0; rep < reps; rep++) {
  const cpu0 = cpuMicros(pid);
  const wall0 = performance.now();
  await run(fetches);
  const us = (cpuMicros(pid) - cpu0) / fetches;
  perFetch.push(us);
  const wall = ((performance.now() - wall0) * 1000) / fetches;
  console.log(
    `rep ${rep + 1}: ${us.toFixed(0)} µs of workerd CPU per fetch (${wall.toFixed(0)} µs wall)`,
  );
}
console.log(
  `median: ${median(perFetch).toFixed(0)} µs of workerd CPU per fetch, ${fetches} fetches × ${reps}`,
);
await mf.dispose();
server.close();
