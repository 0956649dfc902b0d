import { describe, expect, it } from 'vitest';
import { api, type Json, wsId } from './helpers/heimdall';

/**
 * `.planning` interop beyond the seed's own example: a tree the bash tools
 * wrote (its protocol.log records actions no state file shows) moves in and
 * out again unchanged, and an export of a workspace with claims, messages and
 * briefs survives export → import → export → import → export.
 */

const ME = 'agent:planner';
const W = (ws: string) => `/v1/workspaces/${ws}`;

const BASH_TREE: Record<string, string> = {
  'protocol.log': [
    '2026-06-11T12:07:20Z\tresolve\tset\tF12=src/matching/engine.ts',
    '2026-06-11T12:07:21Z\tcapsule\twrite\tw1',
    '2026-06-11T12:07:25Z\tblackboard\tset\tdev_port=5173',
    '2026-06-11T12:07:27Z\tvalidate\taccept\tm1',
    '2026-06-11T12:07:27Z\tledger\tlog\tcoder/task_result=250',
    '2026-06-11T12:07:29Z\tvalidate\treject\tm2',
    '2026-06-11T12:07:30Z\tvalidate\tescalate\tm2',
    '',
  ].join('\n'),
  'blackboard.json': `${JSON.stringify({ version: '2.0.0', facts: { dev_port: '5173' } }, null, 2)}\n`,
  'protocol/symbols.json': `${JSON.stringify({ version: '2.0.0', symbols: { F12: 'src/matching/engine.ts' } }, null, 2)}\n`,
  'protocol/baselines.json': `${JSON.stringify({ version: '2.0.0', baselines: { orchestration: 41000 } }, null, 2)}\n`,
  'protocol/ledger.jsonl':
    '{"ts":"2026-06-11T12:07:27.000Z","role":"coder","kind":"task_result","tokens":250,"msg_id":"m1"}\n',
  'protocol/capsules/w1.md': 'what: added LOB engine\nwhere: F12\n',
};

async function exported(ws: string): Promise<Record<string, string>> {
  const res = await api('GET', `${W(ws)}/export`, ME);
  expect(res.status).toBe(200);
  return res.body.files as Record<string, string>;
}

describe('.planning round trip', () => {
  it('takes in a tree the bash tools wrote, protocol.log included, and gives it back unchanged', async () => {
    const ws = wsId('bash');
    const imported = await api('POST', `${W(ws)}/import`, ME, { files: BASH_TREE });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: 5, log_lines: 7 });
    const files = await exported(ws);
    for (const [path, text] of Object.entries(BASH_TREE)) expect(files[path], path).toBe(text);
    expect(JSON.parse(files['protocol/message-schema.json'] ?? '{}').$id).toContain('2.0.0');
    // The audit tail serves the imported lines, and new actions follow them.
    await api('PUT', `${W(ws)}/blackboard/node_version`, ME, { value: '20.11.0' });
    const tail = await api('GET', `${W(ws)}/log?n=3`, ME);
    const lines = tail.text.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      '2026-06-11T12:07:29Z\tvalidate\treject\tm2',
      '2026-06-11T12:07:30Z\tvalidate\tescalate\tm2',
    ]);
    expect(lines[2]).toMatch(/\tblackboard\tset\tnode_version=20\.11\.0$/);
    expect((await api('GET', `${W(ws)}/symbols/F12`, ME)).body.symbol).toMatchObject({
      value: 'src/matching/engine.ts',
    });
  });

  it('survives export → import → export → import → export with claims, messages and briefs', async () => {
    const ws = wsId('full');
    await api('PUT', `${W(ws)}/symbols/F12`, ME, { value: 'src/matching/engine.ts' });
    await api('PUT', `${W(ws)}/capsules/w1`, ME, { what: 'engine', where: 'F12' });
    await api('POST', `${W(ws)}/claims`, ME, { surfaces: ['src/a/**'], task: 'T-1' });
    await api('POST', `${W(ws)}/messages`, ME, {
      type: 'question',
      from: 'coder',
      msg_id: 'q1',
      question: 'which port?',
    });
    await api('POST', `${W(ws)}/briefs`, ME, {
      task: '3.2',
      spec: 'diff',
      symbols: ['F12'],
      capsules: ['w1'],
      tokens: 90,
    });
    await api('POST', `${W(ws)}/ledger/baseline`, ME, { role: 'orchestration', tokens: 1000 });
    const first = await exported(ws);
    expect(first['protocol.log']?.split('\n').length).toBeGreaterThan(6);
    expect(first['protocol.log']).toMatch(/\tclaims\tclaim\t/);

    const copy = wsId('copy');
    expect((await api('POST', `${W(copy)}/import`, ME, { files: first })).status).toBe(200);
    const second = await exported(copy);
    expect(second).toEqual(first);
    const third = wsId('third');
    expect((await api('POST', `${W(third)}/import`, ME, { files: second })).status).toBe(200);
    expect(await exported(third)).toEqual(first);
    const delta = await api('GET', `${W(third)}/ledger/delta?role=orchestration`, ME);
    expect(delta.body.line).toBe(
      'orchestration: 1000 -> 90 tokens (v1 baseline -> measured; -91%)',
    );
  });

  it('refuses a log line too long for a Wire, naming it, and stores nothing', async () => {
    const ws = wsId('long');
    const res = await api('POST', `${W(ws)}/import`, ME, {
      files: { 'protocol.log': `ok\n${'x'.repeat(7000)}\n` },
    });
    expect(res.status).toBe(422);
    expect(String((res.body as Json).detail)).toContain('files.protocol.log: line 2');
    expect((await api('GET', `${W(ws)}/log`, ME)).text).toBe('');
  });
});

describe('.planning import refusals', () => {
  it('refuses a ledger.jsonl line that is JSON null with a 422 naming the line', async () => {
    const ws = wsId('nul');
    const res = await api('POST', `${W(ws)}/import`, ME, {
      files: {
        'protocol/ledger.jsonl': '{"role":"coder","kind":"task_result","tokens":250}\nnull\n',
      },
    });
    expect(res.status).toBe(422);
    expect(String(res.body.detail)).toContain('files.protocol/ledger.jsonl: line 2');
    expect((await api('GET', `${W(ws)}/ledger/report`, ME)).body.roles).toEqual([]);
  });

  it('refuses a symbol that is not a string, naming it, and stores nothing', async () => {
    const ws = wsId('sym');
    const res = await api('POST', `${W(ws)}/import`, ME, {
      files: {
        'protocol/symbols.json': JSON.stringify({ symbols: { F0: 'a.ts', F1: { path: 'a.ts' } } }),
      },
    });
    expect(res.status).toBe(422);
    expect(String(res.body.detail)).toContain('symbol "F1" is an object, not a string');
    expect((await api('GET', `${W(ws)}/symbols/F0`, ME)).status).toBe(404);
    const nul = await api('POST', `${W(ws)}/import`, ME, {
      files: { 'protocol/symbols.json': JSON.stringify({ symbols: { F2: null } }) },
    });
    expect(nul.status).toBe(422);
    expect(String(nul.body.detail)).toContain('symbol "F2" is null');
  });

  it('takes facts that are strings, numbers or booleans, and refuses any other', async () => {
    const ws = wsId('facts');
    const facts = { dev_port: 5173, ci: true, node: '20.11.0' };
    const ok = await api('POST', `${W(ws)}/import`, ME, {
      files: { 'blackboard.json': JSON.stringify({ facts }) },
    });
    expect(ok.status).toBe(200);
    expect((await api('GET', `${W(ws)}/blackboard/dev_port`, ME)).body.entry).toMatchObject({
      value: '5173',
    });
    const bad = await api('POST', `${W(wsId('facts'))}/import`, ME, {
      files: { 'blackboard.json': JSON.stringify({ facts: { env: ['a'] } }) },
    });
    expect(bad.status).toBe(422);
    expect(String(bad.body.detail)).toContain('fact "env" is an array');
  });
});

describe('capsule files', () => {
  it('refuses a capsule field with a line that would read back as another field, naming the field', async () => {
    const ws = wsId('cap');
    for (const [field, body] of [
      ['what', { what: 'engine\ndepends: later', where: 'F12' }],
      ['gotcha', { what: 'engine', gotcha: 'seed\nwhere: X' }],
      ['decision', { what: 'engine', decision: 'a\r\nwhat:b' }],
    ] as const) {
      const res = await api('PUT', `${W(ws)}/capsules/w1`, ME, body);
      expect(res.status, field).toBe(422);
      expect((res.body.errors as Json[])[0]?.path, field).toBe(field);
    }
    expect((await api('GET', `${W(ws)}/capsules/w1`, ME)).status).toBe(404);
  });

  it('gives multi-line capsule fields back unchanged through export → import → export', async () => {
    const ws = wsId('cap');
    const fields = {
      what: 'engine\n\n  what: indented is text',
      gotcha: 'seed\rkept',
      where: 'F12',
    };
    expect((await api('PUT', `${W(ws)}/capsules/w1`, ME, fields)).status).toBe(200);
    const files = await exported(ws);
    const copy = wsId('cap2');
    expect((await api('POST', `${W(copy)}/import`, ME, { files })).status).toBe(200);
    expect((await exported(copy))['protocol/capsules/w1.md']).toBe(
      files['protocol/capsules/w1.md'],
    );
    expect((await api('GET', `${W(copy)}/capsules/w1`, ME)).body.capsule).toMatchObject(fields);
  });
});
