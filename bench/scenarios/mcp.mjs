// MCP tool-call latency: the official SDK client (@modelcontextprotocol/client)
// against Wirestream's /mcp over Streamable HTTP on 127.0.0.1, one call at a
// time, in both protocol eras: 2025-11-25 (a session: Mcp-Session-Id, one
// Durable Object hop per request to find it) and 2026-07-28 (no session: the
// client info rides in each request's _meta). `make_claim` claims a fresh
// glob each call in one workspace (the collision gate checks every live
// claim of other identities: another identity holds 10); `read_claims`
// reads a workspace of 10 live claims.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { benchToken } from '../lib/auth.mjs';
import { start } from '../lib/runtime.mjs';
import { now, summarize } from '../lib/stats.mjs';

const RUN = Date.now().toString(36);

async function connect(url, sub, era) {
  const token = await benchToken(sub);
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    era === 'sessionless' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(transport);
  return client;
}

async function tool(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
  return r;
}

async function timed(n, call) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await call(i);
    samples.push(now() - t0);
  }
  return samples;
}

/** Two workspaces for `era`: one to claim in (10 claims of another identity), one of 10 claims to read. */
async function prepare(url, era) {
  const ws = `bench-${RUN}-${era}`;
  const other = await connect(url, 'agent:bench-other', era);
  for (const target of [ws, `${ws}-read`]) {
    for (let i = 0; i < 10; i++) {
      await tool(other, 'make_claim', {
        workspace: target,
        surfaces: [`lib/p${i}/**`],
        task: `T-${i}`,
      });
    }
  }
  await other.close();
  const client = await connect(url, 'agent:bench', era);
  let k = 0;
  return {
    client,
    claim: () =>
      tool(client, 'make_claim', { workspace: ws, surfaces: [`src/m${k++}/**`], task: 'T-b' }),
    read: () => tool(client, 'read_claims', { workspace: `${ws}-read` }),
    make: [],
    reads: [],
  };
}

/**
 * p50/p99 of `make_claim` and `read_claims` per era: `warm` untimed calls of
 * each in both eras first (the first era measured would otherwise pay the
 * Worker's warm-up), then `calls` timed calls each, in three rounds that
 * alternate the eras so a drift of the machine's load falls on both.
 */
export async function mcpScenario({ calls, warm, bindings }, builds, log) {
  const rt = await start(builds.wirestream, { bindings, mcp: true, fresh: true });
  const eras = ['session', 'sessionless'];
  const results = {};
  try {
    const runs = {};
    for (const era of eras) runs[era] = await prepare(rt.url, era);
    for (const era of eras) {
      await timed(warm, runs[era].claim);
      await timed(warm, runs[era].read);
    }
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      for (const era of round % 2 ? [...eras].reverse() : eras) {
        const r = runs[era];
        r.make.push(...(await timed(Math.ceil(calls / rounds), r.claim)));
        r.reads.push(...(await timed(Math.ceil(calls / rounds), r.read)));
      }
    }
    for (const era of eras) {
      await runs[era].client.close();
      results[era] = {
        make_claim: summarize(runs[era].make),
        read_claims: summarize(runs[era].reads),
      };
      const f = (s) => `p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms`;
      log(
        `  mcp ${era}: make_claim ${f(results[era].make_claim)}; read_claims ${f(results[era].read_claims)}`,
      );
    }
  } finally {
    await rt.dispose();
  }
  return { calls, warm, ...results };
}
