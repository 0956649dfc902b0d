#!/usr/bin/env node
import { benchToken } from '../bench/lib/auth.mjs';
// Claim latency under a race, with capacity: 100 agents (2 units each) race for
// 20 tasks (1 unit each), all 100 claiming the same task at the same instant,
// one task after another, through the real Worker in a fresh Miniflare built
// from the working tree (anchoring through the Hedera stand-in). Reports the
// winner's latency (reserve on the agent's stream + decide + confirm) and every
// claim's latency, p50/p99, and checks one winner per task and every unit back.
//   node tools/claim-latency.mjs [--tasks 20] [--agents 100]
import { build } from '../bench/lib/build.mjs';
import { claimRace } from '../bench/lib/claim-race.mjs';
import { agentFor, post } from '../bench/lib/load.mjs';
import { start } from '../bench/lib/runtime.mjs';
import { startStandin } from '../bench/lib/standin.mjs';
import { summarize } from '../bench/lib/stats.mjs';
import { ROOT } from '../bench/lib/targets.mjs';
import { wholeNumberOptions } from './lib/command-line.mjs';

const { tasks: TASKS, agents: AGENTS } = wholeNumberOptions(
  { tasks: 20, agents: 100 },
  'usage: node tools/claim-latency.mjs [--tasks 20] [--agents 100]',
);
const CAPACITY = 2;
const RUN = Date.now().toString(36);
let n = 0;
const body = (streamId, type, sender, payload) =>
  JSON.stringify({
    wire: '1.1',
    wire_id: `cl${RUN}-${++n}`,
    stream_id: streamId,
    type,
    sender,
    ts: new Date().toISOString(),
    payload,
  });
const auth = async (sub, extra) => ({ Authorization: `Bearer ${await benchToken(sub, extra)}` });
const path = (streamId) => `/v1/streams/${encodeURIComponent(streamId)}/wires`;

const standin = await startStandin(ROOT);
const bundle = await build('wirestream', { srcDir: ROOT });
const rt = await start(bundle, {
  bindings: {
    RATE_PER_SECOND: '1000000',
    RATE_BURST: '1000000',
    ...(standin ? { HEDERA_LOCAL_URL: standin.url } : {}),
  },
});
const http = agentFor(AGENTS + 1);
try {
  const planner = await auth('coordinator:latency', { roles: ['coordinator'] });
  const agents = await Promise.all(
    Array.from({ length: AGENTS }, async (_, i) => ({
      name: `${RUN}a${i}`,
      headers: await auth(`agent:${RUN}a${i}`),
    })),
  );
  for (const a of agents) {
    const res = await post(
      http,
      rt.origin,
      path(`agent:${a.name}`),
      body(`agent:${a.name}`, 'agent.capacity.updated', `agent:${a.name}`, {
        available_units: CAPACITY,
        max_units: CAPACITY,
      }),
      a.headers,
    );
    if (res.status !== 201) throw new Error(`capacity: ${res.status} ${res.text}`);
  }
  const winners = [];
  const all = [];
  const held = new Map();
  let anomalies = 0;
  const cpu0 = rt.cpu();
  for (let t = 0; t < TASKS; t++) {
    const task = `${RUN}t${t}`;
    const streamId = `task:${task}:attempt:1`;
    const offer = {
      body: body(streamId, 'task.available', 'coordinator:latency', {
        task_id: task,
        role: 'developer',
      }),
      headers: planner,
    };
    const race = await claimRace(http, rt.origin, path(streamId), offer, agents, (a, lease) =>
      body(streamId, 'task.claimed', `agent:${a.name}`, {
        task_id: task,
        agent: a.name,
        role: 'developer',
        lease_expires_at: lease,
        capacity_units_reserved: 1,
      }),
    );
    const { t0 } = race;
    const answers = race.answers.map((r, i) => ({ ...r, a: agents[i] }));
    const won = answers.filter((r) => r.status === 201);
    const told = answers.filter(
      (r) =>
        r.status === 409 &&
        (r.json?.holder === won[0]?.json?.holder ||
          r.json?.type === '/problems/insufficient-capacity'),
    );
    if (won.length !== 1 || told.length !== AGENTS - 1) anomalies += 1;
    for (const r of answers) all.push(r.at + r.ms - t0);
    if (won[0]) {
      winners.push(won[0].at + won[0].ms - t0);
      const h = held.get(won[0].a.name) ?? { a: won[0].a, tasks: [] };
      h.tasks.push({ streamId, task, token: won[0].json.fencing_token });
      held.set(won[0].a.name, h);
    }
  }
  const cpu = rt.cpu() - cpu0;
  for (const { a, tasks } of held.values()) {
    for (const { streamId, task, token } of tasks) {
      await post(
        http,
        rt.origin,
        path(streamId),
        body(streamId, 'task.complete', `agent:${a.name}`, { task_id: task, fencing_token: token }),
        a.headers,
      );
    }
  }
  let leaked = 0;
  for (const a of agents) {
    const res = await fetch(`${rt.url}/v1/coordination/${encodeURIComponent(`agent:${a.name}`)}`, {
      headers: a.headers,
    });
    const view = await res.json();
    if (
      view.state.available_units !== CAPACITY ||
      view.state.held_reservations + view.state.pending_reservations !== 0
    )
      leaked += 1;
  }
  const w = summarize(winners);
  const c = summarize(all);
  console.log(
    `${TASKS} races of ${AGENTS} agents (capacity ${CAPACITY}, 1 unit per claim): winner p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms; ` +
      `all claims p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms; workerd CPU ${(cpu / (TASKS * AGENTS)).toFixed(0)} µs per claim; ` +
      `anomalies ${anomalies}; agents with units not back ${leaked}`,
  );
} finally {
  http.destroy();
  await rt.dispose();
  standin?.stop?.();
}
