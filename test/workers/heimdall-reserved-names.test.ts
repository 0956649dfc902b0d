import { describe, expect, it } from 'vitest';
import { api, wsId } from './helpers/heimdall';

/**
 * Names users choose that JavaScript objects already answer to
 * (`constructor`, `toString`) or that a route also reads as a word
 * (`hydrate`) are names like any other; and a `.planning` import is stored
 * whole or not at all, a retry of it being a replay.
 */

const ME = 'agent:quinn';
const W = (ws: string) => `/v1/workspaces/${ws}`;

describe('names that Object.prototype also has', () => {
  it('sets a symbol named constructor on a fresh workspace and reads it back', async () => {
    const ws = wsId('rn');
    const put = await api('PUT', `${W(ws)}/symbols/constructor`, ME, { value: 'src/a.ts' });
    expect(put.status).toBe(200);
    expect(put.body.symbol).toMatchObject({ id: 'constructor', value: 'src/a.ts' });
    const got = await api('GET', `${W(ws)}/symbols/constructor`, ME);
    expect(got.body.symbol).toMatchObject({ id: 'constructor', value: 'src/a.ts' });
  });

  it('answers 404 for a symbol, blackboard key or capsule named toString that was never set', async () => {
    const ws = wsId('rn');
    expect((await api('GET', `${W(ws)}/symbols/toString`, ME)).status).toBe(404);
    expect((await api('GET', `${W(ws)}/blackboard/toString`, ME)).status).toBe(404);
    expect((await api('GET', `${W(ws)}/capsules/toString`, ME)).status).toBe(404);
    expect((await api('GET', `${W(ws)}/capsules/toString/deps`, ME)).status).toBe(404);
    expect((await api('GET', `${W(ws)}/capsules/toString/hydrate`, ME)).status).toBe(404);
  });

  it('refuses a capsule that depends on an unknown capsule named constructor, as any unknown one', async () => {
    const ws = wsId('rn');
    const put = await api('PUT', `${W(ws)}/capsules/w1`, ME, {
      what: 'x',
      depends: ['constructor'],
    });
    expect(put.status).toBe(422);
    expect(put.body.detail).toContain('"constructor", which does not exist');
    expect((await api('GET', `${W(ws)}/capsules/w1`, ME)).status).toBe(404);
  });

  it('counts ledger lines of a role named constructor in the role total and the report', async () => {
    const ws = wsId('rn');
    const logged = await api('POST', `${W(ws)}/ledger/log`, ME, {
      role: 'constructor',
      kind: 'x',
      tokens: 100,
    });
    expect(logged.status).toBe(201);
    expect(logged.body.role_total).toBe(100);
    const report = await api('GET', `${W(ws)}/ledger/report`, ME);
    expect(report.body.total_tokens).toBe(100);
    expect(report.body.roles).toEqual([
      { role: 'constructor', tokens: 100, lines: 1, baseline: null },
    ]);
  });
});

describe('a capsule named hydrate', () => {
  it('is read back by GET …/capsules/hydrate, while ?ids= still hydrates', async () => {
    const ws = wsId('rn');
    expect(
      (await api('PUT', `${W(ws)}/capsules/hydrate`, ME, { what: 'named like the route' })).status,
    ).toBe(200);
    const got = await api('GET', `${W(ws)}/capsules/hydrate`, ME);
    expect(got.status).toBe(200);
    expect(got.body.capsule).toMatchObject({ id: 'hydrate', what: 'named like the route' });
    const hydrated = await api('GET', `${W(ws)}/capsules/hydrate?ids=hydrate`, ME);
    expect(hydrated.status).toBe(200);
    expect(hydrated.body.capsules).toMatchObject([{ id: 'hydrate' }]);
  });
});

describe('.planning import', () => {
  const good = JSON.stringify({ role: 'orchestration', kind: 'delta_brief', tokens: 100 });
  const bad = JSON.stringify({ role: 'orchestration', kind: 'delta_brief', tokens: -1 });
  const total = async (ws: string) =>
    (await api('GET', `${W(ws)}/ledger/report`, ME)).body.total_tokens;

  it('stores nothing of an archive it refuses, so the corrected archive counts each line once', async () => {
    const ws = wsId('rn');
    const refused = await api('POST', `${W(ws)}/import`, ME, {
      files: {
        'protocol/symbols.json': JSON.stringify({ symbols: { F1: 'src/a.ts' } }),
        'protocol/ledger.jsonl': `${good}\n${bad}\n`,
      },
    });
    expect(refused.status).toBe(422);
    expect((await api('GET', `${W(ws)}/symbols/F1`, ME)).status).toBe(404);
    expect(await total(ws)).toBe(0);
    const corrected = await api('POST', `${W(ws)}/import`, ME, {
      files: { 'protocol/ledger.jsonl': `${good}\n` },
    });
    expect(corrected.status).toBe(200);
    expect(await total(ws)).toBe(100);
  });

  it('answers a retry of the same archive as a replay, not a second copy', async () => {
    const ws = wsId('rn');
    const archive = {
      files: {
        'protocol/symbols.json': JSON.stringify({ symbols: { F1: 'src/a.ts' } }),
        'protocol/ledger.jsonl': `${good}\n`,
      },
    };
    const first = await api('POST', `${W(ws)}/import`, ME, archive);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ imported: 2, replayed: false });
    const again = await api('POST', `${W(ws)}/import`, ME, archive);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ imported: 2, replayed: true });
    expect(await total(ws)).toBe(100);
    const ledger = (await api('GET', `${W(ws)}/export`, ME)).body.files as Record<string, string>;
    expect(ledger['protocol/ledger.jsonl']?.trim().split('\n')).toHaveLength(1);
  });
});
