import { describe, expect, it } from 'vitest';
import { argumentOf } from '../../src/kernel/mcp-tool';
import { uid } from './helpers/coordination';
import { api, wsId } from './helpers/heimdall';
import { call, withMcp } from './helpers/mcp';

/** The MCP `ledger` tool sends each action's own arguments; a refusal names the one at fault. */

describe('the MCP ledger tool', () => {
  it('records a baseline given with arguments only a ledger line takes (msg_id, kind)', async () => {
    const sub = `agent:${uid('l')}`;
    const ws = wsId('mcpl');
    await withMcp(
      'session',
      async (c) => {
        const r = await call(c, 'ledger', {
          workspace: ws,
          action: 'baseline',
          role: 'orchestration',
          tokens: 41000,
          kind: 'delta_brief',
          msg_id: 'b1',
        });
        expect(r.isError, JSON.stringify(r.text)).toBeFalsy();
      },
      { sub, name: 'cursor' },
    );
    const report = await api('GET', `/v1/workspaces/${ws}/ledger/report`, sub);
    expect(report.body.roles).toEqual([
      { role: 'orchestration', tokens: 0, lines: 0, baseline: 41000 },
    ]);
  });

  it('names the argument of an "Unrecognized key" refusal, not the fallback', () => {
    const problem = {
      status: 422,
      type: '/problems/invalid-body',
      detail: '(body): Unrecognized key: "msg_id"',
      errors: [{ path: '(body)', message: 'Unrecognized key: "msg_id"' }],
    };
    expect(argumentOf(problem, ['role', 'tokens', 'msg_id'], 'role')).toBe('msg_id');
    const two = {
      ...problem,
      errors: [{ path: '(body)', message: 'Unrecognized keys: "x", "kind"' }],
    };
    expect(argumentOf(two, ['role', 'kind'], 'role')).toBe('kind');
  });
});
