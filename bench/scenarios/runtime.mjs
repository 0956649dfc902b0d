// Runtime v1 (seed 003) latencies, one message at a time on 127.0.0.1:
//   route decision — POST /v1/channels/{id}/messages → its 201 (the channel
//     has decided and stored `channel.route.decided` in the same stretch),
//     and → that decision arriving at a follower of the channel's stream;
//   worker-message delivery — POST /v1/channels/{id}/route/{workerId} → the
//     message arriving on the interactive worker's own feed (its WebSocket),
//     as RuntimeWorker.onMessage in examples/runtime-worker.mjs receives it.
// The channel's policy has three rules that do not match before its default
// (`respond`), so each decision evaluates the whole policy; the context
// budget is out of reach, so no compaction job joins in.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runtimeEnvelope as envelope, WirestreamClient } from 'wirestream/client';
import { WebSocket } from 'ws';
import { benchToken } from '../lib/auth.mjs';
import { start } from '../lib/runtime.mjs';
import { now, summarize } from '../lib/stats.mjs';
import { ROOT } from '../lib/targets.mjs';

// The Runtime tests' channel policy (test/workers/helpers/runtime.ts).
const POLICY = JSON.parse(
  readFileSync(path.join(ROOT, 'test/fixtures/runtime-policy.json'), 'utf8'),
);

/** Resolves `waiters[key]` when a Wire of `type` whose `keyOf` is `key` arrives. */
function follower(client, stream, type, keyOf) {
  const waiters = new Map();
  const sub = client.subscribe(stream, {
    afterSeq: 0,
    onWires: (wires) => {
      for (const w of wires) {
        if (w.type !== type) continue;
        const key = keyOf(w);
        waiters.get(key)?.(now());
        waiters.delete(key);
      }
    },
  });
  return { sub, arrival: (key) => new Promise((resolve) => waiters.set(key, resolve)) };
}

export async function runtimeScenario({ calls, warm, bindings }, builds, log) {
  const rt = await start(builds.wirestream, { bindings });
  const client = new WirestreamClient({
    baseUrl: rt.url,
    token: await benchToken('agent:bench-runtime'),
    WebSocket,
  });
  const post = (path, body) => client.http.request('POST', path, { body });
  const channel = `bench-${Date.now().toString(36)}`;
  const worker = `${channel}-w`;
  const feeds = [];
  try {
    await post(
      '/v1/channels',
      envelope('channel.opened', channel, { policy: POLICY, contextBudget: 10_000_000 }),
    );
    await post(
      '/v1/workers',
      envelope(
        'worker.spawned',
        channel,
        { goal: 'bench', toolset: ['echo'], mode: 'interactive', timeoutSeconds: 3600 },
        { workerId: worker },
      ),
    );
    const decisions = follower(
      client,
      `channel:${channel}`,
      'runtime.channel.route.decided',
      (w) => w.payload.messageId,
    );
    const routed = follower(
      client,
      `worker:${worker}`,
      'runtime.channel.message.received',
      (w) => w.payload.text,
    );
    feeds.push(decisions.sub, routed.sub);
    const stored = [];
    const seen = [];
    const delivered = [];
    for (let i = 0; i < warm + calls; i++) {
      const message = envelope('channel.message.received', channel, { text: `status of job ${i}` });
      const heard = decisions.arrival(message.messageId);
      const t0 = now();
      await post(`/v1/channels/${channel}/messages`, message);
      const t1 = now();
      const t2 = await heard;
      const text = `routed ${i}`;
      const arrived = routed.arrival(text);
      const t3 = now();
      await post(
        `/v1/channels/${channel}/route/${worker}`,
        envelope('channel.message.received', channel, { text }),
      );
      const t4 = await arrived;
      if (i < warm) continue;
      stored.push(t1 - t0);
      seen.push(t2 - t0);
      delivered.push(t4 - t3);
    }
    const result = {
      calls,
      warm,
      decisionStored: summarize(stored),
      decisionSeen: summarize(seen),
      workerDelivery: summarize(delivered),
    };
    const f = (s) => `p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms`;
    log(
      `  runtime: decision stored ${f(result.decisionStored)}; seen on the channel feed ${f(result.decisionSeen)}; routed message on the worker's feed ${f(result.workerDelivery)}`,
    );
    return result;
  } finally {
    for (const s of feeds) s.close();
    await rt.dispose();
  }
}
