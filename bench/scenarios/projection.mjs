// Projection: how long after an append its Wire is visible in the D1 read
// models (polling GET /v1/wires as a dashboard would, every `pollMs`), and
// how fast POST /v1/admin/rebuild replays the HCS topic back into D1.
import { closedLoop, openLoop } from '../lib/load.mjs';
import { startWithStandin } from '../lib/one-stream.mjs';
import { now, summarize } from '../lib/stats.mjs';
import { streamWires } from '../lib/stream-pages.mjs';
import { oneStream } from '../lib/targets.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function allAnchored(rt, streamId, headers) {
  for await (const w of streamWires(rt.url, streamId, headers)) {
    if (w.anchor?.status !== 'anchored') return false;
  }
  return true;
}

export async function projectionScenario(o, builds, log) {
  const started = await startWithStandin(o, builds);
  if (!started) return null;
  const { system, rt, headers } = started;
  const stream = 'proj';
  const streamId = `bench:${stream}`;
  const common = { ...oneStream(system, rt.origin, headers, stream), seqOf: (r) => r.wire_id };
  try {
    await openLoop({ ...common, rate: 10, ms: 500 });
    const since = new Date(Date.now() - 1000).toISOString();
    const seen = new Map();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const res = await fetch(
          `${rt.url}/v1/wires?stream_id=${encodeURIComponent(streamId)}&since=${encodeURIComponent(since)}&limit=500`,
          { headers },
        );
        const at = now();
        if (res.ok)
          for (const w of (await res.json()).wires)
            if (!seen.has(w.wire_id)) seen.set(w.wire_id, at);
        await sleep(o.pollMs);
      }
    })();
    // `seqOf` returns the wire_id here: the read model is keyed by it.
    const open = await openLoop({ ...common, rate: o.rate, ms: o.openMs });
    const deadline = now() + 30_000;
    while (open.sent.some((s) => !seen.has(s.seq)) && now() < deadline) await sleep(50);
    polling = false;
    await poller;
    const lags = open.sent.filter((s) => seen.has(s.seq)).map((s) => seen.get(s.seq) - s.at);
    const missing = open.sent.length - lags.length;
    log(
      `  projection: append→D1 p99 ${summarize(lags).p99.toFixed(0)} ms at ${o.rate}/s${missing ? ` (${missing} never visible)` : ''}`,
    );

    // Rebuild: more Wires, all anchored, then replay the topic from the mirror.
    await closedLoop({ ...common, clients: 16, ms: o.burstMs });
    const until = now() + 60_000;
    while (!(await allAnchored(rt, streamId, headers)) && now() < until) await sleep(200);
    const t0 = now();
    const res = await fetch(`${rt.url}/v1/admin/rebuild`, { method: 'POST', headers });
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const wall = (now() - t0) / 1000;
    const done = lines.find((l) => l.phase === 'done');
    const error = lines.find((l) => l.phase === 'error');
    if (!done)
      log(`  rebuild did not finish: ${res.status} ${JSON.stringify(error ?? lines.at(-1))}`);
    const rebuild = done
      ? {
          wires: done.wires,
          seconds: wall,
          wiresPerSecond: done.wires / wall,
          reported: done.wires_per_second,
        }
      : null;
    if (rebuild)
      log(
        `  rebuild: ${rebuild.wires} Wires in ${wall.toFixed(2)} s = ${Math.round(rebuild.wiresPerSecond)}/s`,
      );
    return {
      lagSamples: lags,
      lag: summarize(lags),
      missing,
      rate: o.rate,
      pollMs: o.pollMs,
      rebuild,
      rebuildError: error?.detail,
      peakRssMiB: rt.peakRss(),
    };
  } finally {
    await rt.dispose();
  }
}
