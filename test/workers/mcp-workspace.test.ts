import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { api, SEED_BRIEF, SEED_TASK_RESULT } from './helpers/heimdall';
import { type Connected, call, connect, type Era } from './helpers/mcp';

/**
 * The workspace mechanisms as MCP tools (one per mechanism, with an
 * `action`), driven by the official SDK client in both eras: the seed's
 * examples over MCP, each refusal a tool error naming its argument.
 */

const wsId = () => uid('ws').toLowerCase();
type Call = Awaited<ReturnType<typeof call>>;

function refusedOn(r: Call, argument: string, status?: number) {
  expect(r.isError, JSON.stringify(r.text)).toBe(true);
  expect(r.text.problem).toMatchObject({ argument, ...(status ? { status } : {}) });
  expect(String(r.text.error)).toMatch(new RegExp(`^argument "${argument}": `));
}

async function session(era: Era, name = 'cursor') {
  const sub = `agent:${uid('w')}`;
  return { sub, c: await connect(era, { sub, name }), haid: `${sub}/${name}` };
}

async function withClient(
  era: Era,
  body: (c: Connected, haid: string, sub: string) => Promise<void>,
) {
  const { sub, c, haid } = await session(era);
  try {
    await body(c, haid, sub);
  } finally {
    await c.close();
  }
}

describe.each<Era>(['session', 'sessionless'])('workspace tools, %s era', (era) => {
  it('symbols: set, get, reverse lookup, list; a re-set needs force; a missing argument is named', async () =>
    withClient(era, async (c, haid) => {
      const workspace = wsId();
      const set = await call(c, 'symbols', {
        workspace,
        action: 'set',
        id: 'F12',
        value: 'src/matching/engine.ts',
      });
      expect(set.structuredContent).toMatchObject({
        haid,
        symbol: { id: 'F12', value: 'src/matching/engine.ts', set_by: haid },
      });
      await call(c, 'symbols', {
        workspace,
        action: 'set',
        id: 'C3',
        value: 'balances sum to zero',
      });
      const get = await call(c, 'symbols', { workspace, action: 'get', id: 'C3' });
      expect(get.structuredContent.symbol).toMatchObject({ value: 'balances sum to zero' });
      const back = await call(c, 'symbols', {
        workspace,
        action: 'lookup',
        value: 'src/matching/engine.ts',
      });
      expect(back.structuredContent).toMatchObject({ id: 'F12' });
      const list = await call(c, 'symbols', { workspace, action: 'list' });
      expect(list.structuredContent.symbols).toEqual([
        { id: 'C3', value: 'balances sum to zero' },
        { id: 'F12', value: 'src/matching/engine.ts' },
      ]);

      const reset = await call(c, 'symbols', {
        workspace,
        action: 'set',
        id: 'F12',
        value: 'x.ts',
      });
      refusedOn(reset, 'id', 409);
      const forced = await call(c, 'symbols', {
        workspace,
        action: 'set',
        id: 'F12',
        value: 'x.ts',
        force: true,
      });
      expect(forced.structuredContent.symbol).toMatchObject({ value: 'x.ts' });

      refusedOn(await call(c, 'symbols', { workspace, action: 'set', id: 'F13' }), 'value', 422);
      refusedOn(await call(c, 'symbols', { workspace, action: 'get', id: 'Z9' }), 'id', 404);
      refusedOn(await call(c, 'symbols', { workspace, action: 'lookup', value: 'nope' }), 'value');
      const badId = await c.client.callTool({
        name: 'symbols',
        arguments: { workspace, action: 'get', id: '../x' },
      });
      expect(badId.isError).toBe(true);
      expect(JSON.stringify(badId.content)).toContain('id');
    }));

  it('capsules: hydrate w2 gives w1 then w2 (not w3), deps the closure; the 10-line cap and unknown depends are refused', async () =>
    withClient(era, async (c, haid) => {
      const workspace = wsId();
      const write = (id: string, fields: Record<string, unknown>) =>
        call(c, 'capsules', { workspace, action: 'write', id, ...fields });
      const w1 = await write('w1', {
        what: 'added LOB engine',
        where: 'F12',
        gotcha: 'seed must be fixed',
      });
      expect(w1.structuredContent).toMatchObject({ haid, capsule: { id: 'w1' } });
      await write('w2', { what: 'added book diff', where: 'F13', depends: ['w1'] });
      await write('w3', { what: 'unrelated docs', where: 'README' });
      const hydrated = await call(c, 'capsules', { workspace, action: 'hydrate', ids: ['w2'] });
      expect(hydrated.structuredContent.capsules).toEqual([
        { id: 'w1', markdown: 'what: added LOB engine\nwhere: F12\ngotcha: seed must be fixed\n' },
        { id: 'w2', markdown: expect.stringContaining('what: added book diff') },
      ]);
      const deps = await call(c, 'capsules', { workspace, action: 'deps', ids: ['w2'] });
      expect(deps.structuredContent.ids).toEqual(['w1', 'w2']);

      const long = await write('w4', {
        what: Array.from({ length: 11 }, (_, i) => `line ${i}`).join('\n'),
      });
      expect(long.isError).toBe(true);
      expect(String(long.text.error)).toContain('11 lines');
      refusedOn(await write('w5', { what: 'x', depends: ['nope'] }), 'depends', 422);
      refusedOn(await write('w6', {}), 'what', 422);
      refusedOn(await call(c, 'capsules', { workspace, action: 'hydrate', ids: [] }), 'ids', 422);
      refusedOn(await call(c, 'capsules', { workspace, action: 'deps', ids: ['w9'] }), 'ids', 404);
    }));

  it('brief: spec + named symbols + the capsule closure, never a planted plan capsule; its tokens are logged', async () =>
    withClient(era, async (c) => {
      const workspace = wsId();
      await call(c, 'symbols', { workspace, action: 'set', id: 'F12', value: 'src/engine.ts' });
      await call(c, 'symbols', { workspace, action: 'set', id: 'C3', value: 'sum to zero' });
      await call(c, 'symbols', { workspace, action: 'set', id: 'P1', value: 'PLAN-3.md' });
      await call(c, 'capsules', { workspace, action: 'write', id: 'w1', what: 'LOB engine' });
      await call(c, 'capsules', {
        workspace,
        action: 'write',
        id: 'w2',
        what: 'diff',
        depends: ['w1'],
      });
      await call(c, 'capsules', { workspace, action: 'write', id: 'plan', what: 'PLAN BODY' });
      const built = await call(c, 'brief', { workspace, ...SEED_BRIEF, tokens: 120 });
      const brief = built.structuredContent.brief as { text: string; capsules: string[] };
      expect(brief.capsules).toEqual(['w1', 'w2']);
      expect(brief.text).toContain('F12\tsrc/engine.ts');
      expect(brief.text).toContain('Invariants: see INVARIANTS.md');
      expect(brief.text).not.toContain('PLAN');
      expect(built.structuredContent).toMatchObject({ tokens: 120, ledger: { tokens: 120 } });
      const report = await call(c, 'ledger', { workspace, action: 'report' });
      expect(report.structuredContent.roles).toEqual([
        { role: 'orchestration', tokens: 120, lines: 1, baseline: null },
      ]);
      refusedOn(
        await call(c, 'brief', { workspace, task: '3.3', spec: 's', symbols: ['NOPE'] }),
        'symbols',
        422,
      );
    }));

  it('blackboard: set, get with history, list; a missing key is named', async () =>
    withClient(era, async (c, haid) => {
      const workspace = wsId();
      await call(c, 'blackboard', { workspace, action: 'set', key: 'dev_port', value: '5172' });
      await call(c, 'blackboard', { workspace, action: 'set', key: 'dev_port', value: '5173' });
      await call(c, 'blackboard', { workspace, action: 'set', key: 'node', value: '20.11.0' });
      const got = await call(c, 'blackboard', { workspace, action: 'get', key: 'dev_port' });
      expect(got.structuredContent.entry).toMatchObject({ value: '5173', set_by: haid });
      expect((got.structuredContent.entry as { history: unknown[] }).history).toHaveLength(2);
      const list = await call(c, 'blackboard', { workspace, action: 'list' });
      expect(list.structuredContent.entries).toEqual([
        { key: 'dev_port', value: '5173' },
        { key: 'node', value: '20.11.0' },
      ]);
      refusedOn(await call(c, 'blackboard', { workspace, action: 'get' }), 'key', 422);
      refusedOn(await call(c, 'blackboard', { workspace, action: 'get', key: 'none' }), 'key', 404);
    }));

  it("ledger: log, baseline, delta prints the seed's line from logged lines, report per role", async () =>
    withClient(era, async (c) => {
      const workspace = wsId();
      for (const tokens of [3300, 3300, 3300, 450, 450, 450])
        await call(c, 'ledger', {
          workspace,
          action: 'log',
          role: 'orchestration',
          kind: 'k',
          tokens,
        });
      await call(c, 'ledger', {
        workspace,
        action: 'baseline',
        role: 'orchestration',
        tokens: 41000,
      });
      const delta = await call(c, 'ledger', { workspace, action: 'delta', role: 'orchestration' });
      expect(delta.structuredContent.line).toBe(
        'orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)',
      );
      const report = await call(c, 'ledger', { workspace, action: 'report' });
      expect(report.structuredContent).toMatchObject({ total_tokens: 11250 });
      refusedOn(
        await call(c, 'ledger', { workspace, action: 'log', role: 'coder', kind: 'x' }),
        'tokens',
      );
      refusedOn(
        await call(c, 'ledger', { workspace, action: 'delta', role: 'coder' }),
        'role',
        404,
      );
      const badRole = await c.client.callTool({
        name: 'ledger',
        arguments: { workspace, action: 'log', role: 'Coder', kind: 'x', tokens: 1 },
      });
      expect(badRole.isError).toBe(true);
      expect(JSON.stringify(badRole.content)).toContain('role');
    }));

  it('validate_message: accepts, rejects with errors; on receipt one retry, then escalation', async () =>
    withClient(era, async (c, _haid, sub) => {
      const ok = SEED_TASK_RESULT;
      expect((await call(c, 'validate_message', { message: ok })).structuredContent).toMatchObject({
        valid: true,
        errors: [],
      });
      const bad = { ...ok, msg_id: 'm2', status: 'maybe' };
      const judged = await call(c, 'validate_message', { message: bad });
      expect(judged.isError).toBeFalsy();
      expect(judged.structuredContent.valid).toBe(false);
      expect(String(judged.structuredContent.errors)).toContain('status');

      const workspace = wsId();
      const accepted = await call(c, 'validate_message', { message: ok, workspace });
      expect(accepted.structuredContent).toMatchObject({ accepted: true, msg_id: 'm1' });
      const first = await call(c, 'validate_message', { message: bad, workspace });
      refusedOn(first, 'message', 422);
      expect(first.text.problem).toMatchObject({ attempt: 1, retry_allowed: true });
      const second = await call(c, 'validate_message', { message: bad, workspace });
      refusedOn(second, 'message');
      expect(second.text.problem).toMatchObject({ attempt: 2 });
      const log = await api('GET', `/v1/workspaces/${workspace}/log`, sub);
      expect(log.text).toMatch(/\tvalidate\tescalate\t/);
    }));
});
