import { SELF } from 'cloudflare:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { tokenFor } from './helpers/auth';
import { offer, uid } from './helpers/coordination';
import { MCP_URL } from './helpers/mcp';
import { createRun } from './helpers/writer';

/**
 * Token economy (seed 001's theme): what an agent pays, in tokens of
 * `gpt-tokenizer`'s default encoding (o200k_base), to use the MCP server —
 * the tool list a host puts in its context, and per tool a typical call (the
 * arguments the model writes) plus its result (the JSON text block it reads).
 * Sizes are deterministic but for ids and times, so the budgets hold a margin
 * of ~15 % (the tool list: ~4,450 measured). Measured figures: BENCHMARKS.md, "MCP token economy".
 */

/** Documented budgets (BENCHMARKS.md): the tool list, and call + result per tool. */
const BUDGET = {
  tools_list: 5000,
  call: {
    list_haids: 200,
    append_wire: 170,
    read_stream: 330,
    list_available_tasks: 260,
    claim_task: 190,
    heartbeat_task: 150,
    release_task: 150,
    complete_task: 170,
    read_claims: 200,
    make_claim: 200,
    release_claim: 120,
    read_capsules: 260,
    append_decision: 200,
    raise_conflict_pr: 260,
    message_actor: 240,
    request_conductor: 210,
    read_run_document: 320,
    list_run_revisions: 260,
  } as Record<string, number>,
};

interface Exchange {
  request: { method: string; params?: Record<string, unknown> };
  response: { result?: Record<string, unknown> } | null;
}

/** The client's own HTTP traffic, as JSON-RPC request/answer pairs. */
function recordingFetch(log: Exchange[]) {
  return async (input: string | URL | Request, init?: RequestInit) => {
    const res = await SELF.fetch(input as string, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    if (!body?.method) return res;
    const text = await res.clone().text();
    const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
    log.push({ request: body, response: data ? JSON.parse(data) : null });
    return res;
  };
}

function tokens(value: unknown): number {
  return countTokens(typeof value === 'string' ? value : JSON.stringify(value));
}

describe('MCP token economy', () => {
  it('keeps tools/list and a typical call + result of every tool under budget', async () => {
    const log: Exchange[] = [];
    const sub = `agent:${uid('tok')}`;
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
      fetch: recordingFetch(log),
      requestInit: { headers: { Authorization: `Bearer ${await tokenFor({ sub })}` } },
    });
    const client = new Client({ name: 'claude-code', version: '1.0.0' });
    await client.connect(transport);
    const role = uid('role');
    const [t1, t2] = [uid('T'), uid('T')];
    await offer(t1, role);
    await offer(t2, role);
    const ws = uid('ws').toLowerCase();
    const run = await createRun({ writer: sub });
    const calls: [string, Record<string, unknown>][] = [
      ['list_haids', {}],
      [
        'append_wire',
        {
          stream_id: `project:${ws}`,
          type: 'review.concern',
          payload: { concern: 'naming of F12' },
        },
      ],
      ['read_stream', { stream_id: `project:${ws}`, limit: 1 }],
      ['claim_task', { task_id: t1, role }],
      ['heartbeat_task', { task_id: t1 }],
      ['complete_task', { task_id: t1, output_ref: 'r2://out/T-1.json' }],
      ['claim_task', { task_id: t2, role }],
      ['release_task', { task_id: t2 }],
      ['make_claim', { workspace: ws, surfaces: ['src/matching/**'], task: 'T-9' }],
      ['read_claims', { workspace: ws }],
      ['release_claim', { workspace: ws, haid: `${sub}/claude-code` }],
      ['read_capsules', { workspace: ws, id: 'w1' }],
      [
        'append_decision',
        {
          workspace: ws,
          title: 'Use picomatch',
          body: 'Globs are matched by picomatch; extglobs refused.',
        },
      ],
      [
        'raise_conflict_pr',
        {
          workspace: ws,
          id: 'c1',
          title: 'src/a overlap',
          surfaces: ['src/a/**'],
          overriding_intent: 'hotfix',
        },
      ],
      [
        'message_actor',
        {
          run_id: run,
          message: {
            type: 'WriterApplyPatch',
            section: 'findings',
            ops: [{ op: 'replace', path: '/body', value: 'Consensus timestamps order a topic.' }],
            proposal: false,
          },
        },
      ],
      ['request_conductor', { run_id: run, kind: 'spawn.worker', payload: { role: 'critic' } }],
      ['read_run_document', { run_id: run }],
      ['list_run_revisions', { run_id: run }],
    ];
    // list_available_tasks: once the role's offers are projected.
    for (let i = 0; i < 50; i++) {
      const r = (await client.callTool({
        name: 'list_available_tasks',
        arguments: { role, limit: 1 },
      })) as {
        structuredContent?: { tasks?: unknown[] };
      };
      if ((r.structuredContent?.tasks ?? []).length > 0) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await client.listTools();
    for (const [name, args] of calls) await client.callTool({ name, arguments: args });
    await client.close();

    const list = log.filter((e) => e.request.method === 'tools/list').at(-1);
    const measured: Record<string, number> = { tools_list: tokens(list?.response?.result?.tools) };
    const seen = new Set<string>();
    for (const e of log.filter((x) => x.request.method === 'tools/call').reverse()) {
      const name = String(e.request.params?.name);
      if (seen.has(name)) continue; // the last (settled) call of each tool
      seen.add(name);
      const content =
        (e.response?.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';
      measured[name] = tokens({ name, arguments: e.request.params?.arguments }) + tokens(content);
    }
    console.log(`MCP token economy (o200k_base): ${JSON.stringify(measured)}`);

    expect(measured.tools_list).toBeLessThanOrEqual(BUDGET.tools_list);
    const over = Object.entries(BUDGET.call).filter(
      ([n, b]) => !(measured[n] !== undefined && measured[n] <= b),
    );
    expect(over.map(([n, b]) => `${n}: ${measured[n]} > ${b}`)).toEqual([]);
  });
});
