// Turns the results into the printed table and BENCHMARKS.md.

import { printSustainedAll, sustainedSection } from './report-sustained.mjs';
import { fmt, pct, ratio, summarize } from './stats.mjs';
import { consoleTable, markdownTable } from './table.mjs';

const HEAD = [
  'Scenario',
  'System',
  'Throughput /s',
  'CPU µs/append',
  'p50 ms',
  'p99 ms',
  'Peak RSS MiB',
  'Measured as',
];
const NOT_BUILT = 'n/a (not yet built)';
let skipped = NOT_BUILT;

function appendRows(scenario) {
  if (!scenario) return null;
  return Object.values(scenario).map((s) => {
    const open = summarize(s.openSamples);
    const closed = summarize(s.closedSamples);
    const err = s.errors ? `; ${s.errors} errors` : '';
    return {
      system: s.label,
      throughput: s.throughput,
      cpu: s.cpuPerAppendUs,
      p50: open.p50,
      p99: open.p99,
      peak: s.peakRssMiB,
      note: `open loop ${s.rate}/s (closed-loop p99 ${fmt(closed.p99)} ms; load generator stalled p99 ${fmt(s.clientStallP99Ms)} ms)${err}`,
    };
  });
}

function deliveryRows(scenario) {
  if (!scenario) return null;
  return Object.values(scenario).map((s) => {
    const d = summarize(s.deliverySamples);
    const closes = s.closes ? `; closed ${JSON.stringify(s.closes)}` : '';
    const reps =
      (s.repDeliveryP99?.length ?? 0) > 1
        ? `; per repetition p99 ${s.repDeliveryP99.map((v) => fmt(v)).join(' / ')} ms at ${s.repOpenCpuPerAppendUs.map((v) => fmt(v, 0)).join(' / ')} µs per append`
        : '';
    return {
      system: s.label,
      throughput: s.throughput,
      // Fan-out has no closed loop: its CPU is per append in the open loop.
      cpu: Number.isFinite(s.cpuPerAppendUs) ? s.cpuPerAppendUs : s.openCpuPerAppendUs,
      p50: d.p50,
      p99: d.p99,
      peak: s.peakRssMiB,
      note: `append→last of ${s.subscribers} subscribers at ${s.rate}/s; delivered ${pct(s.delivered)}; all connected in ${fmt(s.connectMs / 1000)} s${reps}${closes}`,
    };
  });
}

/** The table's rows for one scenario, from one `{system, throughput, cpu, p50, p99, peak, note}` per system. */
function tableRows(title, rows) {
  if (!rows) return [[title, '—', skipped, '', '', '', '', '']];
  return rows.map((r) => [
    title,
    r.system,
    fmt(r.throughput, 0),
    fmt(r.cpu, 0),
    fmt(r.p50),
    fmt(r.p99),
    fmt(r.peak, 0),
    r.note,
  ]);
}

function claimRows(r) {
  const c = r.claims;
  if (!c) return null;
  const rows = [
    {
      system: 'Wirestream',
      throughput: c.decisionsPerSecond,
      cpu: c.cpuPerClaimUs,
      p50: c.winner.p50,
      p99: c.winner.p99,
      peak: c.peakRssMiB,
      note: `winner's answer, 100 agents × ${c.tasks} tasks; all 100 told the holder p50 ${fmt(c.all.p50)} / p99 ${fmt(c.all.p99)} ms; throughput = decided tasks/s${c.anomalies ? `; ${c.anomalies} ANOMALIES: ${c.lastAnomaly}` : '; exactly one winner each'}`,
    },
  ];
  const h = r.hcsFirst;
  if (h) {
    rows.push({
      system: 'HCS-first (seed 000)',
      throughput: Number.NaN,
      cpu: Number.NaN,
      p50: h.decided.p50,
      p99: h.decided.p99,
      peak: Number.NaN,
      note: `winning claim's submit → first claim in consensus order seen on the mirror (polled every ${h.pollMs} ms), consensus delay ${h.consensusDelayMs} ms, ${h.tasks} tasks`,
    });
  }
  return rows;
}

function projectionRows(p) {
  if (!p) return null;
  const rb = p.rebuild;
  return [
    {
      system: 'Wirestream → D1',
      throughput: rb ? rb.wiresPerSecond : Number.NaN,
      cpu: Number.NaN,
      p50: p.lag.p50,
      p99: p.lag.p99,
      peak: p.peakRssMiB,
      note: `append→visible in GET /v1/wires at ${p.rate}/s (polled every ${p.pollMs} ms)${p.missing ? `; ${p.missing} never visible` : ''}; throughput = rebuild from the mirror, ${rb ? `${rb.wires} Wires in ${fmt(rb.seconds, 2)} s` : `failed: ${p.rebuildError ?? 'no result'}`}`,
    },
  ];
}

function anchoringRows(a) {
  if (!a) return null;
  return [
    {
      system: 'Wirestream → stand-in',
      throughput: a.anchoredPerSecond,
      cpu: a.cpuPerWireUs,
      p50: a.lag.p50,
      p99: a.lag.p99,
      peak: a.peakRssMiB,
      note: `append→anchored at ${a.rate}/s, no consensus delay; burst: appended ${fmt(a.appendPerSecond, 0)}/s, anchored ${fmt(a.anchoredPerSecond, 0)}/s (lag p99 ${fmt(a.burstLag.p99)} ms); ${fmt(a.transactionsPer1000, 0)} HCS transactions per 1,000 Wires = US$${a.feePer1000Usd.toFixed(2)}${a.notAnchored ? `; ${a.notAnchored} not anchored` : ''}`,
    },
  ];
}

export function mainRows(r) {
  skipped = r.quick ? 'skipped (--quick)' : NOT_BUILT;
  return [
    ...tableRows('1 append, one stream', appendRows(r.append1)),
    ...tableRows('2 append, 100 streams', appendRows(r.appendMany)),
    ...tableRows('3 claim race', claimRows(r)),
    ...tableRows('4a append+broadcast, 100 subs', deliveryRows(r.broadcast)),
    ...tableRows(
      `4b fan-out, ${fmt(r.fanout?.wirestream?.subscribers ?? 1000, 0)} subs`,
      deliveryRows(r.fanout),
    ),
    ...tableRows('5 anchoring', anchoringRows(r.anchoring)),
    ...tableRows('6 projection', projectionRows(r.projection)),
  ];
}

const SIZE_HEAD = [
  'Bundle',
  'Raw KiB',
  'Gzip KiB',
  'Miniflare ready ms',
  'First append ms',
  'Second append ms',
  'Idle RSS MiB',
];

export function sizeRows(r) {
  return Object.entries(r.cold ?? {})
    .map(([name, c]) => [
      r.sizes[name]?.label ?? name,
      fmt(c.rawKiB),
      fmt(c.gzipKiB),
      fmt(c.readyMs, 0),
      fmt(c.firstMs),
      fmt(c.secondMs),
      fmt(c.idleRssMiB, 0),
    ])
    .concat(
      r.sizes.wirestreamMin
        ? [
            [
              'Wirestream, --minify',
              fmt(r.sizes.wirestreamMin.uploadKiB),
              fmt(r.sizes.wirestreamMin.uploadGzipKiB),
              '',
              '',
              '',
              '',
            ],
          ]
        : [],
    );
}

/** The median of a few ratios: the mean of the two middle ones for an even count. */
function middle(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

function p99(samples) {
  return summarize(samples ?? []).p99;
}

/**
 * The two one-stream targets for `key` against the ceiling. Verdicts go by the
 * median of per-repetition ratios: within a repetition the systems ran back
 * to back (side by side), while one stall in one repetition can decide a
 * pooled p99 on this machine.
 */
function oneStreamTargets(a, key, suffix, verdict) {
  const w = a[key];
  const ceilings = [a['ceiling-rpc'], a['ceiling-fetch']].filter(Boolean);
  const reps = w.throughputs.map((_, i) => i);
  const repTput = reps.map((i) =>
    ratio(w.throughputs[i], Math.max(...ceilings.map((c) => c.throughputs[i] ?? 0))),
  );
  const repCeilP99 = reps.map((i) => Math.min(...ceilings.map((c) => c.repOpenP99[i])));
  const repLat = reps.map((i) => ratio(w.repOpenP99[i], repCeilP99[i]));
  const best = Math.max(...ceilings.map((c) => c.throughput ?? 0));
  const tput = middle(repTput);
  const lat = middle(repLat);
  const ceil = Math.min(...ceilings.map((c) => p99(c.openSamples)));
  const pooled = `${fmt(ratio(p99(w.openSamples), ceil), 2)}× (${fmt(p99(w.openSamples))} vs ${fmt(ceil)} ms)`;
  return [
    [
      `append one stream ≥ 70% of ceiling${suffix}`,
      reps.length > 1
        ? `${pct(tput)}, median of ${reps.length} repetitions (${repTput.map(pct).join(' / ')}); medians ${fmt(w.throughput, 0)} vs ${fmt(best, 0)}/s`
        : `${pct(tput)} (${fmt(w.throughput, 0)} vs ${fmt(best, 0)}/s)`,
      verdict(tput >= 0.7),
    ],
    [
      `append p99 ≤ 2× ceiling p99${suffix}`,
      reps.length > 1
        ? `${fmt(lat, 2)}×, median of ${reps.length} repetitions (${reps.map((i) => `${fmt(repLat[i], 2)}×: ${fmt(w.repOpenP99[i])} vs ${fmt(repCeilP99[i])} ms`).join(' / ')}); pooled ${pooled}`
        : pooled,
      verdict(lat <= 2),
    ],
  ];
}

/** [target, measured, verdict] rows. */
export function targetRows(r) {
  const rows = [];
  const verdict = (ok) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');
  const a = r.append1;
  if (a?.wirestream) rows.push(...oneStreamTargets(a, 'wirestream', '', verdict));
  if (a?.['wirestream-split']) {
    rows.push(...oneStreamTargets(a, 'wirestream-split', ', HCS side in a 2nd process', verdict));
  }
  const f = r.fanout?.wirestream;
  if (f) {
    const v = p99(f.deliverySamples);
    rows.push([
      'fan-out to 1,000 subscribers p99 ≤ 100 ms',
      `${fmt(v)} ms to ${f.subscribers} subscribers (delivered ${pct(f.delivered)})`,
      // --quick connects fewer: no verdict on a target it did not measure. A full
      // run where some of the 1,000 did not connect is a miss, not an n/a.
      r.quick
        ? `n/a (${f.subscribers} in --quick)`
        : verdict(v <= 100 && f.delivered === 1 && f.subscribers >= 1000),
    ]);
  }
  const lagTargets = [
    ['append→anchored p99 ≤ 1 s', r.anchoringLagP99],
    ['append→D1 p99 ≤ 1 s', r.projectionLagP99],
  ];
  for (const [target, p99] of lagTargets) {
    rows.push(
      p99 === undefined
        ? [target, NOT_BUILT, 'n/a']
        : [target, `${fmt(p99)} ms`, verdict(p99 <= 1000)],
    );
  }
  const size = r.sizes?.wirestream;
  if (size) {
    rows.push([
      'bundle ≤ 400 KiB gzip',
      `${fmt(size.uploadGzipKiB)} KiB (${r.hederaInBundle ? 'includes' : 'does NOT yet include'} @hashgraph/sdk)`,
      verdict(size.uploadGzipKiB <= 400),
    ]);
  }
  return rows;
}

/** Ratios of Wirestream to each other system, per scenario. */
export function ratioRows(r) {
  const rows = [];
  for (const [key, title, metric] of [
    ['append1', 'append, one stream', 'throughput'],
    ['appendMany', 'append, 100 streams', 'throughput'],
    ['broadcast', 'append+broadcast, 100 subs', 'throughput'],
  ]) {
    const s = r[key];
    if (!s?.wirestream) continue;
    for (const [name, other] of Object.entries(s)) {
      if (name === 'wirestream') continue;
      const cpu = ratio(s.wirestream.cpuPerAppendUs, other.cpuPerAppendUs);
      rows.push([
        title,
        `Wirestream / ${other.label}`,
        `${pct(ratio(s.wirestream[metric], other[metric]))} throughput`,
        `${fmt(cpu, 2)}× CPU per append`,
      ]);
    }
  }
  const f = r.fanout;
  if (f?.wirestream) {
    for (const [name, other] of Object.entries(f)) {
      if (name === 'wirestream') continue;
      rows.push([
        'fan-out, 1,000 subs',
        `Wirestream / ${other.label}`,
        `${fmt(ratio(p99(f.wirestream.deliverySamples), p99(other.deliverySamples)), 2)}× p99 delivery`,
        `${fmt(ratio(f.wirestream.openCpuPerAppendUs, other.openCpuPerAppendUs), 2)}× CPU per append`,
      ]);
    }
  }
  if (r.hcsFirst && r.claims) {
    const x = ratio(r.hcsFirst.decided.p50, r.claims.winner.p50);
    rows.push(['claim decision', 'HCS-first / Wirestream', `${fmt(x, 0)}× slower (p50)`, '']);
  }
  return rows;
}

function partsLine(r) {
  const parts = r.sizes?.wirestream?.parts ?? [];
  if (!parts.length) return '';
  const mcp = r.sizes.wirestream.mcp;
  const apart = mcp
    ? ` \`/mcp\` is a Worker of its own (mcp/wrangler.toml, not in the row above): ${fmt(mcp.uploadKiB, 0)} KiB, ${fmt(mcp.uploadGzipKiB, 0)} KiB gzip.`
    : '';
  return `Largest parts of the Wirestream bundle (bytes in output before gzip): ${parts.map((p) => `${p.pkg} ${fmt(p.kib, 0)} KiB`).join(', ')}.${apart}`;
}

const MCP_HEAD = ['MCP tool call', 'Era', 'p50 ms', 'p99 ms', 'max ms', 'Calls'];
const ERAS = { session: '2025-11-25 (Mcp-Session-Id)', sessionless: '2026-07-28 (no session)' };

/** Scenario 8: MCP tool-call latency, per tool and protocol era. */
function mcpRows(r) {
  if (!r.mcp) return [];
  const rows = [];
  for (const tool of ['make_claim', 'read_claims']) {
    for (const [era, label] of Object.entries(ERAS)) {
      const s = r.mcp[era]?.[tool];
      if (s)
        rows.push([`\`${tool}\``, label, fmt(s.p50, 2), fmt(s.p99, 2), fmt(s.max, 2), fmt(s.n, 0)]);
    }
  }
  return rows;
}

export function printMcp(r) {
  return consoleTable(MCP_HEAD, mcpRows(r));
}

function mcpSection(r) {
  if (!r.mcp) return '';
  return `## MCP tool calls

The official SDK client (\`@modelcontextprotocol/client\`) over Streamable HTTP to \`/mcp\` on 127.0.0.1, one call at a time after ${r.mcp.warm} warm-up calls of each tool in each era, the eras alternating over three rounds; \`make_claim\` claims a fresh glob per call past 10 live claims of another identity, \`read_claims\` reads 10 claims. \`npm run bench -- --mcp\` runs this scenario alone.

${markdownTable(MCP_HEAD, mcpRows(r))}

`;
}

const RUNTIME_HEAD = ['Runtime v1 latency', 'p50 ms', 'p99 ms', 'max ms', 'Messages'];

/** Scenario 9: Runtime v1's route decision and worker-message delivery. */
function runtimeRows(r) {
  if (!r.runtime) return [];
  const rows = [
    ['route decision: POST message → 201 (decided, stored)', r.runtime.decisionStored],
    ["route decision: POST message → seen on the channel's feed", r.runtime.decisionSeen],
    ["worker message: POST route → on the worker's feed", r.runtime.workerDelivery],
  ];
  return rows.map(([what, s]) => [what, fmt(s.p50, 2), fmt(s.p99, 2), fmt(s.max, 2), fmt(s.n, 0)]);
}

export function printRuntime(r) {
  return consoleTable(RUNTIME_HEAD, runtimeRows(r));
}

function runtimeSection(r) {
  if (!r.runtime) return '';
  return `## Runtime v1 latency

One message at a time to a channel whose policy evaluates three non-matching rules before its default, after ${r.runtime.warm} warm-up messages; followers of the channel's stream and of an interactive worker's feed on WebSockets (the SDK). \`npm run bench -- --runtime\` runs this scenario alone.

${markdownTable(RUNTIME_HEAD, runtimeRows(r))}

`;
}

export function printAll(r) {
  return [
    consoleTable(HEAD, mainRows(r)),
    '',
    consoleTable(SIZE_HEAD, sizeRows(r)),
    partsLine(r),
    '',
    consoleTable(['Ratio', 'Pair', 'Value', ''], ratioRows(r)),
    '',
    printMcp(r),
    '',
    printRuntime(r),
    '',
    printSustainedAll(r),
    '',
    consoleTable(['Target', 'Measured', 'Verdict'], targetRows(r)),
  ].join('\n');
}

export function markdown(r, limits) {
  const m = r.meta;
  return `# Benchmarks

Latest full run of \`${m.command}\` on ${m.date} — commit \`${m.commit}\`${m.worktree ? ' (working tree)' : ''}, Node ${m.node}, ${m.cpus} cores, load average before the run ${m.loadBefore}, after ${m.loadAfter}; took ${fmt(m.seconds, 0)} s.
Everything runs locally in workerd via Miniflare ${m.miniflare} (one fresh instance per measured run), load generator and WebSocket clients on 127.0.0.1 in the same Node process (clients in a worker thread).
Regenerate with \`npm run bench\` (about ${Math.ceil(m.seconds / 60)} minutes); \`npm run bench -- --quick\` is a one-minute smoke run that writes \`bench/.out/BENCHMARKS.quick.md\` instead.

## Results

${markdownTable(HEAD, mainRows(r))}

## Size and cold start

${markdownTable(SIZE_HEAD, sizeRows(r))}

${partsLine(r)}

## Ratios

${markdownTable(['Scenario', 'Pair', 'Value', ''], ratioRows(r))}

${sustainedSection(r)}${mcpSection(r)}${runtimeSection(r)}
## Targets

${markdownTable(['Target', 'Measured', 'Verdict'], targetRows(r))}

${limits}
`;
}
