// Claim race: 100 agents claim the same task at once; Wirestream's task
// stream decides in its sequencer (one 201, 99 × 409 naming the holder).
// Side by side, the HCS-first path of seed 000: each agent submits its claim
// to an HCS topic and the winner is the first claim in consensus order, as
// read back from the mirror node — with the stand-in's consensus delay at 3 s.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchToken } from '../lib/auth.mjs';
import { claimRace } from '../lib/claim-race.mjs';
import { agentFor } from '../lib/load.mjs';
import { start } from '../lib/runtime.mjs';
import { now, summarize } from '../lib/stats.mjs';
import { ROOT } from '../lib/targets.mjs';

const AGENTS = 100;
const RUN = Date.now().toString(36);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const auth = (token) => ({ Authorization: `Bearer ${token}` });

function envelope(streamId, type, sender, payload, n) {
  return JSON.stringify({
    wire: '1.1',
    wire_id: `c${RUN}-${n}-${sender.replace(/[^A-Za-z0-9]/g, '')}`,
    stream_id: streamId,
    type,
    sender,
    ts: new Date().toISOString(),
    payload,
  });
}

/** Wirestream: time until the winner knows, and until all 100 know. */
export async function claimScenario({ tasks, bindings }, builds, log) {
  const rt = await start(builds.wirestream, { bindings });
  const http = agentFor(AGENTS + 1);
  try {
    const planner = auth(await benchToken('coordinator:bench', { roles: ['coordinator'] }));
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, async (_, i) => {
        const name = `a${String(i).padStart(2, '0')}`;
        return { name, sender: `agent:${name}`, headers: auth(await benchToken(`agent:${name}`)) };
      }),
    );
    const winner = [];
    const all = [];
    let anomalies = 0;
    let lastAnomaly = '';
    const cpu0 = rt.cpu();
    const started = now();
    for (let t = 0; t < tasks; t++) {
      const task = `t${RUN}${t}`;
      const streamId = `task:${task}:attempt:1`;
      const path = `/v1/streams/${encodeURIComponent(streamId)}/wires`;
      const offer = {
        body: envelope(
          streamId,
          'task.available',
          'coordinator:bench',
          { task_id: task, role: 'developer', attempt: 1 },
          t,
        ),
        headers: planner,
      };
      const { t0, answers } = await claimRace(http, rt.origin, path, offer, agents, (a, lease) =>
        envelope(
          streamId,
          'task.claimed',
          a.sender,
          { task_id: task, agent: a.name, role: 'developer', lease_expires_at: lease },
          t,
        ),
      );
      const won = answers.filter((r) => r.status === 201);
      const holder = won[0]?.json?.holder;
      const lost = answers.filter((r) => r.status === 409 && r.json?.holder === holder);
      if (won.length !== 1 || lost.length !== AGENTS - 1) {
        anomalies += 1;
        lastAnomaly = `${won.length} winners, ${lost.length} told the holder; e.g. ${answers.find((r) => r.status !== 201 && r.status !== 409)?.text ?? ''}`;
      }
      if (won[0]) winner.push(won[0].at + won[0].ms - t0);
      all.push(Math.max(...answers.map((r) => r.at + r.ms)) - t0);
    }
    const seconds = (now() - started) / 1000;
    const result = {
      tasks,
      winner: summarize(winner),
      all: summarize(all),
      winnerSamples: winner,
      decisionsPerSecond: tasks / seconds,
      cpuPerClaimUs: (rt.cpu() - cpu0) / (tasks * (AGENTS + 1)),
      peakRssMiB: rt.peakRss(),
      anomalies,
      lastAnomaly,
    };
    log(
      `  claims: ${tasks} races, winner p99 ${result.winner.p99.toFixed(0)} ms, all 100 know p99 ${result.all.p99.toFixed(0)} ms${anomalies ? `, ${anomalies} anomalies: ${lastAnomaly}` : ''}`,
    );
    return result;
  } finally {
    http.destroy();
    await rt.dispose();
  }
}

/** HCS-first: submit 100 claims to a topic, learn the winner from the mirror node. */
export async function hcsFirstScenario({ standin, tasks, consensusDelayMs, pollMs }, log) {
  if (!standin) return null;
  const sdk = await import(
    pathToFileURL(path.join(ROOT, 'node_modules/@hashgraph/sdk/lib/browser.js')).href
  );
  const info = await standin.info();
  const client = sdk.WebClient.forNetwork(info.network);
  client.setOperator(info.operatorId, sdk.PrivateKey.fromStringDer(info.operatorKey));
  try {
    const receipt = await (
      await new sdk.TopicCreateTransaction().setTopicMemo('bench claims').execute(client)
    ).getReceipt(client);
    const topicId = receipt.topicId.toString();
    await standin.faults({ topicId, receiptDelayMs: consensusDelayMs });
    const decided = [];
    let seen = 0;
    for (let t = 0; t < tasks; t++) {
      const task = `h${RUN}${t}`;
      const submittedAt = new Map();
      await Promise.all(
        Array.from({ length: AGENTS }, async (_, i) => {
          const agent = `a${String(i).padStart(2, '0')}`;
          const tx = new sdk.TopicMessageSubmitTransaction()
            .setTopicId(topicId)
            .setMessage(JSON.stringify({ type: 'task.claim', task_id: task, agent }));
          submittedAt.set(agent, now());
          await tx.execute(client);
        }),
      );
      // Every agent polls the mirror node; the first claim in consensus order wins.
      for (let decidedAt = null; decidedAt === null; ) {
        const res = await fetch(
          `${standin.url}/api/v1/topics/${topicId}/messages?sequencenumber=gt:${seen}&limit=100&order=asc`,
        );
        const body = await res.json();
        for (const m of body.messages ?? []) {
          seen = Math.max(seen, m.sequence_number);
          const claim = JSON.parse(Buffer.from(m.message, 'base64').toString('utf8'));
          if (decidedAt === null && claim.task_id === task) {
            decidedAt = now();
            decided.push(decidedAt - submittedAt.get(claim.agent));
          }
        }
        if (decidedAt === null) await sleep(pollMs);
      }
      // Let this task's other claims surface so the next task starts clean.
      if (t + 1 < tasks) await sleep(consensusDelayMs);
    }
    await standin.faults({ topicId, receiptDelayMs: 0 });
    const result = {
      tasks,
      consensusDelayMs,
      pollMs,
      decided: summarize(decided),
      samples: decided,
    };
    log(
      `  HCS-first: winner known after p50 ${result.decided.p50.toFixed(0)} ms (consensus delay ${consensusDelayMs} ms)`,
    );
    return result;
  } finally {
    client.close();
  }
}
