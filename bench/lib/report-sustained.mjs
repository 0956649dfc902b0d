// The printed tables and BENCHMARKS.md section of issue 32's scenarios:
// 4c (the same open-loop rates for every system, 100 subscribers) and 10
// (the sustained rate per anchoring mode), with their targets.
import { fmt, pct, ratio, summarize } from './stats.mjs';
import { consoleTable, markdownTable } from './table.mjs';

const ORDINARY_HEAD = [
  'Rate /s',
  'System',
  'Delivery p50 ms',
  'Delivery p99 ms',
  'CPU µs/append (window)',
  'CPU µs/append (with tail)',
  'Delivered',
];

function ordinaryRows(r) {
  const rows = [];
  for (const [rate, scenario] of Object.entries(r.ordinary ?? {})) {
    for (const s of Object.values(scenario)) {
      const d = summarize(s.deliverySamples);
      rows.push([
        rate,
        s.label,
        fmt(d.p50, 2),
        fmt(d.p99, 1),
        fmt(s.openCpuPerAppendUs, 0),
        fmt(s.openCpuWithTailPerAppendUs, 0),
        pct(s.delivered),
      ]);
    }
  }
  return rows;
}

const SUSTAINED_HEAD = [
  'Anchoring mode',
  'Sustained /s',
  'Anchored /s',
  'Projected /s',
  'Backlog at end',
  'Anchor lag p99 ms',
  'CPU µs/append',
  'HCS msgs / 1,000 Wires',
  'Steps (rate: kept up?)',
];

function sustainedRows(r) {
  return Object.values(r.sustained ?? {}).map((m) => {
    const h = m.held;
    return [
      m.mode,
      h ? fmt(h.rate, 0) : 'below the first step',
      h ? fmt(h.anchoredPerSecond, 0) : 'n/a',
      h ? fmt(h.projectedPerSecond, 0) : 'n/a',
      h ? `${h.backlogAnchoring} / ${h.backlogProjection}` : 'n/a',
      h ? fmt(h.lag.p99, 0) : 'n/a',
      h ? fmt(h.cpuPerAppendUs, 0) : 'n/a',
      h ? `${fmt(h.messagesPer1000, 1)} (US$${fmt(h.feePer1000Usd, 3)})` : 'n/a',
      m.steps.map((s) => `${s.rate}: ${s.pass ? 'yes' : 'no'}`).join(', '),
    ];
  });
}

function printSustained(r) {
  return consoleTable(SUSTAINED_HEAD, sustainedRows(r));
}

/** Wirestream's two anchoring modes in scenario 4c: system key and name. */
const MODES = [
  ['wirestream', 'envelope mode'],
  ['wirestream-log', 'log mode'],
];

/** Issue 32's and issue 31's benchmark targets: [target, measured, verdict]. */
export function sustainedTargetRows(r) {
  const rows = [];
  const verdict = (ok) => (ok ? 'met' : 'MISSED');
  const ceiling = r.append1?.['ceiling-rpc']?.throughput;
  const log = r.sustained?.log;
  const envelope = r.sustained?.envelope;
  if (log && ceiling) {
    const rate = log.held?.rate ?? 0;
    rows.push([
      'log mode: sustained rate ≥ 70% of the bare DO closed loop',
      `${pct(ratio(rate, ceiling))} (${fmt(rate, 0)} vs ${fmt(ceiling, 0)}/s)`,
      verdict(rate >= 0.7 * ceiling),
    ]);
  }
  if (log?.held) {
    const h = log.held;
    rows.push([
      'log mode: ≤ 10 HCS messages and ≤ US$0.01 per 1,000 Wires',
      `${h.messagesPer1000.toFixed(2)} messages, US$${h.feePer1000Usd.toFixed(4)} at ${fmt(h.rate, 0)}/s`,
      verdict(h.messagesPer1000 <= 10 && h.feePer1000Usd <= 0.01),
    ]);
  }
  if (log) {
    const first = log.steps[0];
    if (first)
      rows.push([
        'log mode: append → checkpointed p99 ≤ 1 s at the default interval',
        `${fmt(first.lag.p99, 0)} ms at ${first.rate}/s`,
        verdict(first.lag.p99 <= 1000),
      ]);
  }
  if (envelope) {
    const rate = envelope.held?.rate ?? 0;
    rows.push([
      'envelope mode: sustained rate ≥ 1.5× 900/s (the rate measured before issue 32)',
      `${fmt(rate, 0)}/s`,
      verdict(rate >= 1350),
    ]);
  }
  const at600 = r.ordinary?.[600];
  if (at600?.wirestream && at600.agents) {
    const a = summarize(at600.agents.deliverySamples);
    for (const [key, mode] of MODES) {
      if (!at600[key]) continue;
      const w = summarize(at600[key].deliverySamples);
      rows.push([
        `600/s, 100 subs: delivery p50 and p99 ≤ the Agents SDK (${mode})`,
        `p50 ${fmt(w.p50, 2)} vs ${fmt(a.p50, 2)} ms, p99 ${fmt(w.p99, 1)} vs ${fmt(a.p99, 1)} ms`,
        verdict(w.p50 <= a.p50 && w.p99 <= a.p99),
      ]);
    }
    const ac = at600.agents.openCpuWithTailPerAppendUs;
    for (const [key, mode] of MODES) {
      const wc = at600[key]?.openCpuWithTailPerAppendUs;
      if (wc === undefined) continue;
      rows.push([
        `600/s, 100 subs: CPU per append including anchoring ≤ the Agents SDK (${mode})`,
        `${fmt(wc, 0)} vs ${fmt(ac, 0)} µs`,
        verdict(wc <= ac),
      ]);
    }
  }
  const b = r.broadcast;
  if (b?.wirestream && b.agents) {
    const x = ratio(b.wirestream.throughput, b.agents.throughput);
    rows.push([
      'closed loop, 100 subs: ≥ 1.5× the Agents SDK throughput',
      `${fmt(x, 2)}× (${fmt(b.wirestream.throughput, 0)} vs ${fmt(b.agents.throughput, 0)}/s)`,
      verdict(x >= 1.5),
    ]);
  }
  return rows;
}

export function printSustainedAll(r) {
  return [
    r.ordinary ? `${consoleTable(ORDINARY_HEAD, ordinaryRows(r))}\n` : '',
    r.sustained ? `${printSustained(r)}\n` : '',
    consoleTable(['Target', 'Measured', 'Verdict'], sustainedTargetRows(r)),
  ].join('\n');
}

export function sustainedSection(r) {
  if (!r.sustained && !r.ordinary) return '';
  return `## What users live with: ordinary load and the sustained rate

**Scenario 4c**: every system at the same open-loop rates with 100 subscribers on the stream; delivery is append → the last of the 100 subscribers; CPU "with tail" counts workerd until it is quiet again after the window, so Wirestream's anchoring and projection of those appends are in it. "Topics in a 2nd process" runs log mode with its HCS side (TopicObject, TopicDirectory) in a second workerd process, as on Cloudflare where those objects do not share the stream's thread; its CPU is both processes'. The verdicts below use the one-process rows.

${markdownTable(ORDINARY_HEAD, ordinaryRows(r))}

**Scenario 10**: the highest open-loop rate at which every Wire is anchored and projected (at the end of the window at most 2 s of appends wait for either, and append → anchored p99 and append p99 stay under 2 s), held for the full window (${fmt(r.sustained?.envelope?.held?.seconds ?? Number.NaN, 0)} s), per anchoring mode, with the Hedera stand-in; rates step up in short windows until one falls behind. \`npm run bench -- --sustained\` runs it alone.

${markdownTable(SUSTAINED_HEAD, sustainedRows(r))}

${markdownTable(['Target', 'Measured', 'Verdict'], sustainedTargetRows(r))}

`;
}
