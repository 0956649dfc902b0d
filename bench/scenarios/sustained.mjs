// Sustained rate (issue 32): the highest open-loop append rate at which
// Wirestream keeps up with everything an append sets off — every Wire anchored
// on HCS and projected into D1 — with a backlog that stays bounded. Measured
// per anchoring mode (envelope: one HCS message per Wire; log: one signed
// checkpoint per LOG_CHECKPOINT_EVERY Wires) in a fresh Miniflare with the
// Hedera stand-in, one stream, no subscribers but the one that watches the
// `anchored` news.
//
// Rates go up in steps with short windows until one fails; the highest rate
// that passed is then held for the full window (60 s in a full run) and
// reported — stepping down when the long window fails it.
import { logSignerKey } from '../../tools/dev-tokens.mjs';
import { openLoop } from '../lib/load.mjs';
import { followedStream, startWithStandin } from '../lib/one-stream.mjs';
import { now, summarize } from '../lib/stats.mjs';
import { FEE_USD } from './anchoring.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * What it takes to keep up: at the window's end at most this many seconds of
 * appends wait for their anchor or their projection, and the append → anchored
 * p99 and the append latency p99 stay under LAG_MS.
 */
const BACKLOG_SECONDS = 2;
const LAG_MS = 2000;

/** The topics' counts, as `GET /v1/topics` reports them (summed over topics). */
async function topicCounts(rt, headers) {
  const res = await fetch(`${rt.url}/v1/topics`, { headers });
  if (!res.ok) throw new Error(`GET /v1/topics: ${res.status} ${await res.text()}`);
  const { topics } = await res.json();
  const sum = (key) => topics.reduce((n, t) => n + (t[key] ?? 0), 0);
  return {
    total: sum('total'),
    anchored: sum('anchored'),
    projected: sum('projected'),
    topicIds: topics.map((t) => t.hcs_topic_id).filter(Boolean),
    at: now(),
  };
}

/** HCS messages on the topics so far: each topic's last sequence number on the stand-in's mirror. */
async function hcsMessages(mirrorUrl, topicIds) {
  let messages = 0;
  for (const id of topicIds) {
    const page = await fetch(`${mirrorUrl}/api/v1/topics/${id}/messages?order=desc&limit=1`);
    messages += (await page.json()).messages?.[0]?.sequence_number ?? 0;
  }
  return messages;
}

async function drained(rt, headers, timeoutMs) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const c = await topicCounts(rt, headers);
    if ((c.anchored === c.total && c.projected === c.total) || now() > deadline) return c;
    await sleep(250);
  }
}

/** One window at `rate`: appends, then what was anchored and projected meanwhile. */
async function windowAt(started, common, subs, rate, ms) {
  const { rt, headers, mirrorUrl } = started;
  const before = await topicCounts(rt, headers);
  const messages0 = await hcsMessages(mirrorUrl, before.topicIds);
  const cpu0 = rt.cpu();
  const open = await openLoop({ ...common, rate, ms });
  const end = await topicCounts(rt, headers);
  const seconds = (end.at - before.at) / 1000;
  const after = await drained(rt, headers, 60_000);
  const cpu = rt.cpu() - cpu0;
  const messages = (await hcsMessages(mirrorUrl, after.topicIds)) - messages0;
  // The `anchored` news reaches the follower shortly after the topic counts it.
  let { anchoredAt, closes } = await subs.wait(0, 0);
  for (let tries = 0; tries < 50 && open.sent.some((x) => !(x.seq in anchoredAt)); tries++) {
    await sleep(100);
    ({ anchoredAt, closes } = await subs.wait(0, 0));
  }
  const lags = open.sent
    .filter((s) => anchoredAt[s.seq] !== undefined)
    .map((s) => anchoredAt[s.seq] - s.at);
  const appended = open.sent.length;
  const per1000 = (messages / Math.max(1, appended)) * 1000;
  const result = {
    rate,
    seconds,
    appended,
    errors: open.errors,
    resets: open.resets,
    lastError: open.lastError,
    anchoredPerSecond: (end.anchored - before.anchored) / seconds,
    projectedPerSecond: (end.projected - before.projected) / seconds,
    backlogAnchoring: end.total - end.anchored,
    backlogProjection: end.total - end.projected,
    lag: summarize(lags),
    // Share of the window's Wires whose `anchored` news reached the follower.
    lagCoverage: lags.length / Math.max(1, appended),
    appendP99: summarize(open.latencies).p99,
    // CPU per append including the anchoring and projection it caused.
    cpuPerAppendUs: cpu / Math.max(1, appended),
    drainedMs: after.at - end.at,
    // The follower's closes so far, by code (4008: told to resume, which it did).
    followerCloses: closes,
    // HCS messages (and so fees) per 1,000 of this window's Wires.
    messagesPer1000: per1000,
    feePer1000Usd: per1000 * FEE_USD,
  };
  const limit = rate * BACKLOG_SECONDS;
  result.pass =
    // Refusals fail a rate; connection resets (the load generator's keep-alive
    // race, not a refusal) are tolerated up to 0.1% of the appends and reported.
    open.errors === open.resets &&
    open.resets <= 0.001 * (appended + open.resets) &&
    result.backlogAnchoring <= limit &&
    result.backlogProjection <= limit &&
    result.lag.p99 <= LAG_MS &&
    result.appendP99 <= LAG_MS &&
    lags.length === appended;
  return result;
}

const line = (mode, r) =>
  `  sustained ${mode} ${r.rate}/s for ${r.seconds.toFixed(0)} s: anchored ${Math.round(r.anchoredPerSecond)}/s, projected ${Math.round(r.projectedPerSecond)}/s, backlog ${r.backlogAnchoring}/${r.backlogProjection} at the end, anchor lag p99 ${Math.round(r.lag.p99)} ms (${(100 * r.lagCoverage).toFixed(1)}% of Wires seen anchored by the follower), ${Math.round(r.cpuPerAppendUs)} µs/append, ${r.messagesPer1000.toFixed(1)} HCS messages per 1,000 → ${r.pass ? 'keeps up' : 'falls behind'}${r.errors ? ` (${r.errors} errors, ${r.resets} of them connection resets: ${r.lastError})` : ''}${Object.keys(r.followerCloses ?? {}).length ? `; follower closed so far: ${JSON.stringify(r.followerCloses)}` : ''}`;

/**
 * @param {object} o
 * @param {string[]} o.modes anchoring modes to measure ('envelope', 'log')
 * @param {number[]} o.rates ascending candidate rates
 * @param {number} o.stepMs window per step while searching
 * @param {number} o.holdMs the window the reported rate is held for
 */
export async function sustainedScenario(o, builds, log) {
  const out = {};
  for (const variant of o.modes) {
    // `<mode>-split`: the HCS side in a second workerd process, as on Cloudflare
    // where every Durable Object has a thread of its own (lib/runtime.mjs).
    const [mode, split] = variant.split('-');
    const bindings = { ...o.bindings, ANCHOR_MODE: mode, LOG_SIGNER_KEY: logSignerKey('bench') };
    const started = await startWithStandin(
      { ...o, bindings, fresh: true, split: split === 'split' },
      builds,
    );
    if (!started) return null;
    const { system, rt, headers } = started;
    started.mirrorUrl = o.standin.url;
    const { common, subs } = await followedStream(system, rt.origin, headers, `sus-${variant}`, {
      count: 1,
      ack: true,
      anchors: true,
    });
    const steps = [];
    let held = null;
    let peakRssMiB = Number.NaN;
    try {
      // Warm up: the first anchor creates the topic at the stand-in.
      await openLoop({ ...common, rate: 20, ms: 1000 });
      await drained(rt, headers, 30_000);
      let best = -1;
      for (const [i, rate] of o.rates.entries()) {
        const r = await windowAt(started, common, subs, rate, o.stepMs);
        steps.push(r);
        log(line(variant, r));
        if (!r.pass) break;
        best = i;
      }
      for (let i = best; i >= 0 && held === null; i--) {
        const r = await windowAt(started, common, subs, o.rates[i], o.holdMs);
        log(line(variant, r));
        if (r.pass) held = r;
        else steps.push(r);
      }
      peakRssMiB = rt.peakRss();
    } finally {
      await subs.stop();
      await rt.dispose();
    }
    out[variant] = { mode: variant, held, steps, peakRssMiB };
  }
  return out;
}
