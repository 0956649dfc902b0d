import { SELF } from 'cloudflare:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { tokenFor } from './helpers/auth';
import { offer, uid } from './helpers/coordination';
import { SEED_BRIEF, SEED_TASK_RESULT } from './helpers/heimdall';
import { MCP_URL } from './helpers/mcp';
import { createRun } from './helpers/writer';

/**
 * Token economy (seed 001's theme): what an agent pays, in tokens of
 * `gpt-tokenizer`'s default encoding (o200k_base), to use the MCP server —
 * the tool list a host puts in its context, and per tool a typical call (the
 * arguments the model writes) plus its result (the JSON text block it reads).
 * Sizes are deterministic but for ids and times, so the budgets hold a margin
 * of ~15 % (the tool list: ~6,800 measured, 26 tools — 3 % under its budget since
 * the runtime's two tools, ~700 tokens). Measured figures: BENCHMARKS.md, "MCP token economy".
 */

/** Documented budgets (BENCHMARKS.md): the tool list, and call + result per tool. */
const BUDGET = {
  tools_list: 7000,
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
    // The workspace tools, per action (`tool.action`).
    'symbols.set': 170,
    'symbols.get': 170,
    'symbols.lookup': 80,
    'symbols.list': 100,
    'capsules.write': 140,
    'capsules.hydrate': 130,
    'capsules.deps': 70,
    brief: 310,
    'blackboard.set': 130,
    'blackboard.get': 160,
    'blackboard.list': 100,
    'ledger.log': 130,
    'ledger.baseline': 80,
    'ledger.delta': 120,
    'ledger.report': 100,
    validate_message: 90,
    'validate_message.receipt': 130,
    // Runtime v1's channel and worker sides, per action.
    'runtime_channel.open': 170,
    'runtime_channel.say': 155,
    'runtime_channel.state': 355,
    'runtime_channel.events': 440,
    // Up to 3 bulletins (none yet here: 34 measured).
    'runtime_channel.bulletins': 400,
    'runtime_worker.spawn': 165,
    'runtime_worker.progress': 135,
    'runtime_worker.messages': 80,
    'runtime_worker.state': 175,
    'runtime_worker.complete': 155,
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

/** A typical call of each runtime action: a channel, a message, an interactive worker's turn. */
function runtimeCalls(channel: string): [string, Record<string, unknown>][] {
  const ch = { channel_id: channel };
  const w = { worker_id: `${channel}-w` };
  const policy = {
    rules: [
      {
        id: 'research',
        when: { textIncludes: ['investigate'] },
        route: { action: 'spawn_branch' },
      },
    ],
    default: { action: 'respond' },
  };
  return [
    ['runtime_channel', { ...ch, action: 'open', policy, context_budget: 8000 }],
    ['runtime_channel', { ...ch, action: 'say', text: 'investigate the login errors' }],
    ['runtime_channel', { ...ch, action: 'state' }],
    ['runtime_channel', { ...ch, action: 'events', after_seq: 1 }],
    ['runtime_channel', { action: 'bulletins' }],
    [
      'runtime_worker',
      {
        ...w,
        ...ch,
        action: 'spawn',
        goal: 'triage logins',
        toolset: ['logs'],
        mode: 'interactive',
      },
    ],
    ['runtime_worker', { ...w, action: 'progress', status: 'waiting', note: 'ready' }],
    ['runtime_channel', { ...ch, action: 'say', text: 'look at eu-west first', to: w.worker_id }],
    ['runtime_worker', { ...w, action: 'messages' }],
    ['runtime_worker', { ...w, action: 'state' }],
    [
      'runtime_worker',
      {
        ...w,
        action: 'complete',
        summary: 'stale eu-west token cache',
        tokens: { input: 900, output: 80 },
      },
    ],
  ];
}

/** A typical call of each workspace tool's actions (the seed's examples). */
function workspaceCalls(workspace: string): [string, Record<string, unknown>][] {
  const message = SEED_TASK_RESULT;
  const w = { workspace };
  return [
    ['symbols', { ...w, action: 'set', id: 'F12', value: 'src/matching/engine.ts' }],
    ['symbols', { ...w, action: 'set', id: 'C3', value: 'balances sum to zero' }],
    ['symbols', { ...w, action: 'get', id: 'F12' }],
    ['symbols', { ...w, action: 'lookup', value: 'src/matching/engine.ts' }],
    ['symbols', { ...w, action: 'list' }],
    [
      'capsules',
      {
        ...w,
        action: 'write',
        id: 'w1',
        what: 'added LOB engine',
        where: 'F12',
        gotcha: 'seed must be fixed',
      },
    ],
    [
      'capsules',
      { ...w, action: 'write', id: 'w2', what: 'added book diff', where: 'F13', depends: ['w1'] },
    ],
    ['capsules', { ...w, action: 'hydrate', ids: ['w2'] }],
    ['capsules', { ...w, action: 'deps', ids: ['w2'] }],
    ['brief', { ...w, ...SEED_BRIEF, tokens: 120 }],
    ['blackboard', { ...w, action: 'set', key: 'dev_port', value: '5173' }],
    ['blackboard', { ...w, action: 'set', key: 'node_version', value: '20.11.0' }],
    ['blackboard', { ...w, action: 'get', key: 'dev_port' }],
    ['blackboard', { ...w, action: 'list' }],
    [
      'ledger',
      {
        ...w,
        action: 'log',
        role: 'orchestration',
        kind: 'delta_brief',
        tokens: 3300,
        msg_id: 'b1',
      },
    ],
    ['ledger', { ...w, action: 'baseline', role: 'orchestration', tokens: 41000 }],
    ['ledger', { ...w, action: 'delta', role: 'orchestration' }],
    ['ledger', { ...w, action: 'report' }],
    ['validate_message', { message }],
    ['validate_message', { message, workspace }],
  ];
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
      ...workspaceCalls(ws),
      ...runtimeCalls(`tok-${ws}`),
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
      const args = e.request.params?.arguments as Record<string, unknown> | undefined;
      const action = args?.action ?? (args?.message && args.workspace ? 'receipt' : undefined);
      const name = `${e.request.params?.name}${action ? `.${action}` : ''}`;
      if (seen.has(name)) continue; // the last (settled) call of each tool
      seen.add(name);
      const content =
        (e.response?.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';
      measured[name] = tokens({ name: e.request.params?.name, arguments: args }) + tokens(content);
    }
    console.log(`MCP token economy (o200k_base): ${JSON.stringify(measured)}`);

    expect(measured.tools_list).toBeLessThanOrEqual(BUDGET.tools_list);
    const over = Object.entries(BUDGET.call).filter(
      ([n, b]) => !(measured[n] !== undefined && measured[n] <= b),
    );
    expect(over.map(([n, b]) => `${n}: ${measured[n]} > ${b}`)).toEqual([]);
  });
});
