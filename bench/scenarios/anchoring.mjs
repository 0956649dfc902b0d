// Anchoring: how far behind an append its HCS anchor lands (open loop, no
// consensus delay at the stand-in), how many Wires per second the anchoring
// loop keeps up with under a closed-loop burst, and how many HCS
// transactions (and so fees) 1,000 Wires cost. Observed as a subscriber
// would: `{"kind":"anchored"}` frames on the stream's WebSocket.
import { closedLoop, openLoop } from '../lib/load.mjs';
import { followedStream, startWithStandin } from '../lib/one-stream.mjs';
import { now, summarize } from '../lib/stats.mjs';
import { streamWires } from '../lib/stream-pages.mjs';

/** US$ per HCS message (ConsensusSubmitMessage; DESIGN.md, verifiable-log facts). */
export const FEE_USD = 0.0008;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function untilAnchored(subs, seqs, timeoutMs) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const { anchoredAt } = await subs.wait(0, 0);
    const missing = seqs.filter((s) => anchoredAt[s] === undefined).length;
    if (missing === 0 || now() > deadline) return { anchoredAt, missing };
    await sleep(100);
  }
}

async function transactionsOf(rt, streamId, headers) {
  const messages = new Map();
  let wires = 0;
  for await (const w of streamWires(rt.url, streamId, headers)) {
    wires += 1;
    const a = w.anchor ?? {};
    if (a.status === 'anchored')
      messages.set(`${a.hcs_topic_id}/${a.hcs_sequence_number}`, a.hcs_chunks ?? 1);
  }
  let transactions = 0;
  for (const chunks of messages.values()) transactions += chunks;
  return { wires, messages: messages.size, transactions };
}

export async function anchoringScenario(o, builds, log) {
  const started = await startWithStandin(o, builds);
  if (!started) return null;
  const { system, rt, headers } = started;
  const stream = 'anchor';
  const { common, subs } = await followedStream(system, rt.origin, headers, stream, {
    count: 1,
    ack: true,
    anchors: true,
  });
  try {
    // Warm up: the first anchor creates the topic at the stand-in.
    const warm = await openLoop({ ...common, rate: 10, ms: 500 });
    await untilAnchored(
      subs,
      warm.sent.map((s) => s.seq),
      20_000,
    );

    const open = await openLoop({ ...common, rate: o.rate, ms: o.openMs });
    const lagRecord = await untilAnchored(
      subs,
      open.sent.map((s) => s.seq),
      30_000,
    );
    const lags = open.sent
      .filter((s) => lagRecord.anchoredAt[s.seq] !== undefined)
      .map((s) => lagRecord.anchoredAt[s.seq] - s.at);
    log(
      `  anchoring: lag p99 ${summarize(lags).p99.toFixed(0)} ms at ${o.rate}/s (${lagRecord.missing} not anchored)`,
    );

    const cpu0 = rt.cpu();
    const burstStart = now();
    const burst = await closedLoop({ ...common, clients: 16, ms: o.burstMs });
    const burstRecord = await untilAnchored(
      subs,
      burst.sent.map((s) => s.seq),
      60_000,
    );
    const cpu = rt.cpu() - cpu0;
    const lastAnchored = Math.max(...burst.sent.map((s) => burstRecord.anchoredAt[s.seq] ?? 0));
    const anchoredPerSecond =
      (burst.sent.length - burstRecord.missing) / ((lastAnchored - burstStart) / 1000);
    const burstLags = burst.sent
      .filter((s) => burstRecord.anchoredAt[s.seq] !== undefined)
      .map((s) => burstRecord.anchoredAt[s.seq] - s.at);
    log(
      `  anchoring: ${burst.sent.length} Wires appended at ${Math.round(burst.completed / burst.seconds)}/s, anchored at ${Math.round(anchoredPerSecond)}/s`,
    );

    const tx = await transactionsOf(rt, `bench:${stream}`, headers);
    const perThousand = (tx.transactions / tx.wires) * 1000;
    return {
      lagSamples: lags,
      lag: summarize(lags),
      rate: o.rate,
      notAnchored: lagRecord.missing + burstRecord.missing,
      appendPerSecond: burst.completed / burst.seconds,
      anchoredPerSecond,
      burstLag: summarize(burstLags),
      cpuPerWireUs: cpu / burst.sent.length,
      peakRssMiB: rt.peakRss(),
      wires: tx.wires,
      messages: tx.messages,
      transactionsPer1000: perThousand,
      feePer1000Usd: perThousand * FEE_USD,
    };
  } finally {
    await subs.stop();
    await rt.dispose();
  }
}
