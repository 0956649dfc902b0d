// Cold start and size: bundle weight as `wrangler deploy --dry-run` reports
// it, and how long a fresh workerd takes to answer its first append (isolate
// start-up, module evaluation and the Durable Object's first instantiation).
import { benchHeaders } from '../lib/auth.mjs';
import { agentFor, post } from '../lib/load.mjs';
import { start } from '../lib/runtime.mjs';
import { median } from '../lib/stats.mjs';
import { SYSTEMS, wireBody } from '../lib/targets.mjs';

const FIRST_SYSTEM = {
  wirestream: 'wirestream',
  ceiling: 'ceiling-rpc',
  agents: 'agents',
  partyserver: 'partyserver',
};

export async function coldStartScenario({ reps, projects, bindings }, builds, log) {
  const headers = await benchHeaders();
  const out = {};
  for (const project of projects) out[project] = { ready: [], first: [], second: [], idle: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (const project of projects) {
      const system = SYSTEMS[FIRST_SYSTEM[project]];
      const rt = await start(builds[project], { bindings });
      const agent = agentFor(1);
      try {
        const first = await post(
          agent,
          rt.origin,
          system.appendPath('cold'),
          wireBody('cold'),
          headers,
        );
        const second = await post(
          agent,
          rt.origin,
          system.appendPath('cold'),
          wireBody('cold'),
          headers,
        );
        if (first.status !== 201)
          throw new Error(`${project}: first append ${first.status} ${first.text}`);
        out[project].ready.push(rt.readyMs);
        out[project].first.push(first.ms);
        out[project].second.push(second.ms);
        out[project].idle.push(rt.rss());
      } finally {
        agent.destroy();
        await rt.dispose();
      }
    }
    log(`  cold start rep ${rep + 1} done`);
  }
  const result = {};
  for (const [project, r] of Object.entries(out)) {
    const b = builds[project];
    result[project] = {
      rawKiB: b.uploadKiB,
      gzipKiB: b.uploadGzipKiB,
      readyMs: median(r.ready),
      firstMs: median(r.first),
      secondMs: median(r.second),
      idleRssMiB: median(r.idle),
    };
  }
  return result;
}
