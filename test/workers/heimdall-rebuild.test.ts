import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { surfacesDecider } from '../../src/modules/heimdall/surfaces/decider';
import { workspaceDecider } from '../../src/modules/heimdall/workspace/decider';
import type { Wire } from '../../src/protocol';
import { streamStub } from '../../src/stream/stub';
import { api, type Json, wsId } from './helpers/heimdall';
import { comparableDump, runRebuild, untilQuiet } from './helpers/projection-live';

const W = (ws: string) => `/v1/workspaces/${ws}`;

async function rows(ws: string) {
  const { results } = await env.DB.prepare(
    'SELECT * FROM heimdall_state WHERE workspace = ? ORDER BY stream_id',
  )
    .bind(ws)
    .all<Record<string, unknown>>();
  return results;
}

async function wiresOf(streamId: string): Promise<Wire[]> {
  const page = await streamStub(env, streamId).read(0, 1000);
  return page.wires as unknown as Wire[];
}

describe('heimdall read models', () => {
  it('hold the deciders’ state in D1, and a rebuild from HCS reproduces the workspace and the claims exactly', async () => {
    const ws = wsId('rb');
    await api('PUT', `${W(ws)}/symbols/F12`, 'agent:a', { value: 'src/matching/engine.ts' });
    await api('PUT', `${W(ws)}/symbols/F12`, 'agent:b', { value: 'src/x.ts', force: true });
    await api('PUT', `${W(ws)}/capsules/w1`, 'agent:a', { what: 'added LOB engine', where: 'F12' });
    await api('PUT', `${W(ws)}/capsules/w2`, 'agent:a', { what: 'book diff', depends: ['w1'] });
    await api('PUT', `${W(ws)}/blackboard/dev_port`, 'agent:a', { value: '5173' });
    await api('POST', `${W(ws)}/ledger/log`, 'agent:a', {
      role: 'orchestration',
      kind: 'delta_brief',
      tokens: 3300,
    });
    await api('POST', `${W(ws)}/ledger/baseline`, 'agent:a', {
      role: 'orchestration',
      tokens: 41000,
    });
    await api('POST', `${W(ws)}/briefs`, 'agent:a', {
      task: '3.2',
      spec: 'diff',
      symbols: ['F12'],
      capsules: ['w2'],
      tokens: 500,
    });
    await api('POST', `${W(ws)}/decisions`, 'agent:a', { title: 't', body: 'b' });
    await api('POST', `${W(ws)}/conflicts`, 'agent:a', {
      id: 'c1',
      title: 't',
      surfaces: ['a/**'],
    });
    await api('POST', `${W(ws)}/messages`, 'agent:a', {
      type: 'question',
      from: 'x',
      msg_id: 'q1',
      question: '?',
    });
    await api('POST', `${W(ws)}/messages`, 'agent:a', {
      type: 'question',
      from: 'x',
      msg_id: 'q2',
    });
    await api('POST', `${W(ws)}/messages`, 'agent:a', {
      type: 'question',
      from: 'x',
      msg_id: 'q2',
    });
    const held = await api('POST', `${W(ws)}/claims`, 'agent:a', {
      surfaces: ['src/**'],
      task: 'A',
    });
    await api('POST', `${W(ws)}/claims`, 'agent:b', { surfaces: ['src/a.ts'], task: 'B' });
    await api('POST', `${W(ws)}/claims`, 'agent:b', {
      surfaces: ['lib/**'],
      task: 'C',
      mode: 'shared',
    });
    await api('POST', `${W(ws)}/claims/${(held.body.claim as Json).claim_id}/renew`, 'agent:a', {
      ttl_minutes: 90,
    });
    await untilQuiet();

    const live = await rows(ws);
    expect(live.map((r) => r.kind)).toEqual(['surfaces', 'workspace']);
    // The rows are the deciders' own states: what the streams decide with.
    const wsWires = await wiresOf(`workspace:${ws}`);
    const surfWires = await wiresOf(`surfaces:${ws}`);
    const fold = <S>(d: { initialState(): S; evolve(s: S, w: Wire, c: null): S }, wires: Wire[]) =>
      wires.reduce((s, w) => d.evolve(s, w, null), d.initialState());
    expect(JSON.parse(String(live[1]?.state))).toEqual(fold(workspaceDecider, wsWires));
    expect(JSON.parse(String(live[0]?.state))).toEqual(fold(surfacesDecider, surfWires));
    const view = await streamStub(env, `workspace:${ws}`).coordination();
    expect(JSON.parse(String(live[1]?.state))).toEqual(view.state);
    const claims = JSON.parse(String(live[0]?.state)).claims as Record<string, Json>;
    expect(Object.values(claims).map((c) => [c.haid, c.task, c.mode, c.renewals])).toEqual([
      ['agent:a', 'A', 'exclusive', 1],
      ['agent:b', 'C', 'shared', 0],
    ]);

    const before = await comparableDump();
    const lines = await runRebuild();
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await rows(ws)).toEqual(live);
    expect(await comparableDump()).toEqual(before);
  }, 60_000);
});
