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

/** p50/p99 of `make_claim` and `read_claims` per era; `calls` timed calls each after `warm`. */
export async function mcpScenario({ calls, warm, bindings }, builds, log) {
  const rt = await start(builds.wirestream, { bindings });
  const results = {};
  try {
    for (const era of ['session', 'sessionless']) {
      const ws = `bench-${RUN}-${era}`;
      const other = await connect(rt.url, 'agent:bench-other', era);
      for (let i = 0; i < 10; i++) {
        await tool(other, 'make_claim', {
          workspace: ws,
          surfaces: [`lib/p${i}/**`],
          task: `T-${i}`,
        });
      }
      await other.close();
      const client = await connect(rt.url, 'agent:bench', era);
      let k = 0;
      const claim = () =>
        tool(client, 'make_claim', { workspace: ws, surfaces: [`src/m${k++}/**`], task: 'T-b' });
      await timed(warm, claim);
      // read_claims reads a workspace of the other identity's 10 claims only.
      const readWs = `${ws}-read`;
      const reader = await connect(rt.url, 'agent:bench-other', era);
      for (let i = 0; i < 10; i++) {
        await tool(reader, 'make_claim', {
          workspace: readWs,
          surfaces: [`lib/p${i}/**`],
          task: `T-${i}`,
        });
      }
      await reader.close();
      const readTen = () => tool(client, 'read_claims', { workspace: readWs });
      await timed(warm, readTen);
      const make = await timed(calls, claim);
      const reads = await timed(calls, readTen);
      await client.close();
      results[era] = { make_claim: summarize(make), read_claims: summarize(reads) };
      log(
        `  mcp ${era}: make_claim p50 ${results[era].make_claim.p50.toFixed(1)} ms p99 ${results[era].make_claim.p99.toFixed(1)} ms; read_claims p50 ${results[era].read_claims.p50.toFixed(1)} ms p99 ${results[era].read_claims.p99.toFixed(1)} ms`,
      );
    }
  } finally {
    await rt.dispose();
  }
  return { calls, warm, ...results };
}
