import { describe, expect, it } from 'vitest';
import { api, type Json, SEED_TASK_RESULT, wsId } from './helpers/heimdall';

/** Seed 001's own examples, command for command, against `/v1/workspaces/{ws}/…`. */

const W = (ws: string) => `/v1/workspaces/${ws}`;
const ME = 'agent:coder';

describe("the seed's examples", () => {
  it('heimdall-resolve: set, get, reverse, list; a re-set to another value is refused unless forced', async () => {
    const ws = wsId();
    // heimdall-resolve set F12 "src/matching/engine.ts"; set C3 "balances sum to zero"
    expect(
      (await api('PUT', `${W(ws)}/symbols/F12`, ME, { value: 'src/matching/engine.ts' })).status,
    ).toBe(200);
    expect(
      (await api('PUT', `${W(ws)}/symbols/C3`, ME, { value: 'balances sum to zero' })).status,
    ).toBe(200);
    // heimdall-resolve F12 → src/matching/engine.ts
    expect(((await api('GET', `${W(ws)}/symbols/F12`, ME)).body.symbol as Json).value).toBe(
      'src/matching/engine.ts',
    );
    expect(((await api('GET', `${W(ws)}/symbols/C3`, ME)).body.symbol as Json).value).toBe(
      'balances sum to zero',
    );
    // heimdall-resolve --reverse "src/matching/engine.ts" → F12
    const rev = await api(
      'GET',
      `${W(ws)}/symbols?reverse=${encodeURIComponent('src/matching/engine.ts')}`,
      ME,
    );
    expect(rev.body.id).toBe('F12');
    // heimdall-resolve list → id<TAB>value for the whole table
    const list = await api('GET', `${W(ws)}/symbols`, ME);
    expect(list.body).toEqual({
      protocol_version: '2.0.0',
      symbols: [
        { id: 'C3', value: 'balances sum to zero' },
        { id: 'F12', value: 'src/matching/engine.ts' },
      ],
    });
    // Same value again: fine. Another value: refused, then forced; both recorded.
    expect(
      (await api('PUT', `${W(ws)}/symbols/F12`, ME, { value: 'src/matching/engine.ts' })).status,
    ).toBe(200);
    const clash = await api('PUT', `${W(ws)}/symbols/F12`, 'agent:other', {
      value: 'src/engine2.ts',
    });
    expect(clash.status).toBe(409);
    expect(String(clash.body.type)).toMatch(/\/symbol-conflict$/);
    expect(clash.body.current).toBe('src/matching/engine.ts');
    const forced = await api('PUT', `${W(ws)}/symbols/F12`, 'agent:other', {
      value: 'src/engine2.ts',
      force: true,
    });
    expect(forced.status).toBe(200);
    const history = ((forced.body.symbol as Json).history as Json[]).map((h) => [
      h.value,
      h.by,
      h.forced ?? false,
    ]);
    expect(history).toEqual([
      ['src/matching/engine.ts', ME, false],
      ['src/matching/engine.ts', ME, false],
      ['src/engine2.ts', 'agent:other', true],
    ]);
    expect((await api('GET', `${W(ws)}/symbols/NOPE`, ME)).status).toBe(404);
  });

  it('heimdall-capsule: hydrate w2 emits w1 then w2, not w3; deps; the 10-line cap; depends must exist, no cycles', async () => {
    const ws = wsId();
    const put = (id: string, body: Json) => api('PUT', `${W(ws)}/capsules/${id}`, ME, body);
    expect(
      (await put('w1', { what: 'added LOB engine', where: 'F12', gotcha: 'seed must be fixed' }))
        .status,
    ).toBe(200);
    expect(
      (await put('w2', { what: 'added book diff', where: 'F13', depends: ['w1'] })).status,
    ).toBe(200);
    expect((await put('w3', { what: 'unrelated docs', where: 'README' })).status).toBe(200);
    const hydrated = await api('GET', `${W(ws)}/capsules/w2/hydrate`, ME);
    expect((hydrated.body.capsules as Json[]).map((c) => c.id)).toEqual(['w1', 'w2']);
    expect((hydrated.body.capsules as Json[])[0]?.markdown).toBe(
      'what: added LOB engine\nwhere: F12\ngotcha: seed must be fixed\n',
    );
    expect((await api('GET', `${W(ws)}/capsules/w2/deps`, ME)).body.ids).toEqual(['w1', 'w2']);
    const one = await api('GET', `${W(ws)}/capsules/w1`, ME);
    expect(one.body.capsule).toMatchObject({ id: 'w1', what: 'added LOB engine', depends: [] });

    const long = await put('w4', {
      what: Array.from({ length: 11 }, (_, i) => `line ${i}`).join('\n'),
    });
    expect(long.status).toBe(422);
    expect(String(long.body.detail)).toContain('11 lines');
    expect(long.body.lines).toBe(11);
    const unknown = await put('w5', { what: 'x', depends: ['nope'] });
    expect(unknown.status).toBe(422);
    expect(String(unknown.body.detail)).toContain('"nope"');
    const cycle = await put('w1', { what: 'rewritten', depends: ['w2'] });
    expect(cycle.status).toBe(422);
    expect(String(cycle.body.type)).toMatch(/\/capsule-cycle$/);
    expect((await put('w6', { what: 'self', depends: ['w6'] })).status).toBe(422);
    expect((await api('GET', `${W(ws)}/capsules/w4`, ME)).status).toBe(404);
  });

  it('heimdall-brief: spec + named symbols + capsule closure + invariants ref; a planted plan never appears; tokens logged', async () => {
    const ws = wsId();
    const plan = 'PLAN-3.md: the whole secret plan body, wave 1..10, every criterion restated';
    await api('PUT', `${W(ws)}/symbols/F12`, ME, { value: 'src/matching/engine.ts' });
    await api('PUT', `${W(ws)}/symbols/C3`, ME, { value: 'balances sum to zero' });
    await api('PUT', `${W(ws)}/symbols/P1`, ME, { value: plan });
    await api('PUT', `${W(ws)}/capsules/w1`, ME, { what: 'added LOB engine', where: 'F12' });
    await api('PUT', `${W(ws)}/capsules/w2`, ME, { what: 'added book diff', depends: ['w1'] });
    await api('PUT', `${W(ws)}/capsules/w3`, ME, { what: plan });
    await api('PUT', `${W(ws)}/blackboard/plan`, ME, { value: plan });
    // heimdall-brief build --task 3.2 --spec "implement book diff" --symbols F12,C3 --capsules w2 --invariants INVARIANTS.md
    const built = await api('POST', `${W(ws)}/briefs`, ME, {
      task: '3.2',
      spec: 'implement book diff',
      symbols: ['F12', 'C3'],
      capsules: ['w2'],
      invariants: 'INVARIANTS.md',
      tokens: 812,
    });
    expect(built.status).toBe(201);
    const brief = built.body.brief as Json;
    expect(brief.symbols).toEqual({ F12: 'src/matching/engine.ts', C3: 'balances sum to zero' });
    expect(brief.capsules).toEqual(['w1', 'w2']);
    const text = String(brief.text);
    expect(text).toContain('implement book diff');
    expect(text).toContain('INVARIANTS.md');
    expect(text).toContain('added book diff');
    expect(text).not.toContain('PLAN-3');
    expect(text).not.toContain('secret plan');
    const report = await api('GET', `${W(ws)}/ledger/report`, ME);
    expect(report.body.roles).toEqual([
      { role: 'orchestration', tokens: 812, lines: 1, baseline: null },
    ]);
    const unknown = await api('POST', `${W(ws)}/briefs`, ME, {
      task: '3.3',
      spec: 's',
      symbols: ['ZZ'],
    });
    expect(unknown.status).toBe(422);
    expect(String(unknown.body.detail)).toContain('"ZZ"');
  });

  it('heimdall-blackboard: set, get, list; the history of a key is kept', async () => {
    const ws = wsId();
    expect((await api('PUT', `${W(ws)}/blackboard/dev_port`, ME, { value: 5173 })).status).toBe(
      200,
    );
    await api('PUT', `${W(ws)}/blackboard/node_version`, ME, { value: '20.11.0' });
    expect(((await api('GET', `${W(ws)}/blackboard/dev_port`, ME)).body.entry as Json).value).toBe(
      '5173',
    );
    expect((await api('GET', `${W(ws)}/blackboard`, ME)).body.entries).toEqual([
      { key: 'dev_port', value: '5173' },
      { key: 'node_version', value: '20.11.0' },
    ]);
    await api('PUT', `${W(ws)}/blackboard/dev_port`, 'agent:other', { value: '5174' });
    const entry = (await api('GET', `${W(ws)}/blackboard/dev_port`, ME)).body.entry as Json;
    expect(entry.value).toBe('5174');
    expect((entry.history as Json[]).map((h) => [h.value, h.by])).toEqual([
      ['5173', ME],
      ['5174', 'agent:other'],
    ]);
  });

  it("heimdall-ledger: log, baseline, delta prints the seed's line from logged lines; report per role", async () => {
    const ws = wsId();
    // The demo's v2 wave: a symbol table, 3 delta briefs and 3 typed results = 11250.
    const lines: [string, string, number][] = [
      ['orchestration', 'symbol_table', 1200],
      ['orchestration', 'delta_brief', 3300],
      ['orchestration', 'delta_brief', 3100],
      ['orchestration', 'delta_brief', 2900],
      ['orchestration', 'typed_result', 250],
      ['orchestration', 'typed_result', 250],
      ['orchestration', 'typed_result', 250],
      ['coder', 'task_result', 250],
    ];
    for (const [role, kind, tokens] of lines) {
      const logged = await api('POST', `${W(ws)}/ledger/log`, ME, {
        role,
        kind,
        tokens,
        msg_id: `b${tokens}`,
      });
      expect(logged.status).toBe(201);
    }
    expect((await api('GET', `${W(ws)}/ledger/delta?role=orchestration`, ME)).status).toBe(404);
    await api('POST', `${W(ws)}/ledger/baseline`, ME, { role: 'orchestration', tokens: 41000 });
    const delta = await api('GET', `${W(ws)}/ledger/delta?role=orchestration`, ME);
    expect(delta.body.line).toBe(
      'orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)',
    );
    expect(delta.body).toMatchObject({
      baseline: 41000,
      measured: 11250,
      delta_percent: -73,
      lines: 7,
    });
    const report = await api('GET', `${W(ws)}/ledger/report`, ME);
    expect(report.body.roles).toEqual([
      { role: 'coder', tokens: 250, lines: 1, baseline: null },
      { role: 'orchestration', tokens: 11250, lines: 7, baseline: 41000 },
    ]);
    const log = await api('GET', `${W(ws)}/log?n=3`, ME);
    expect(log.type).toMatch(/^text\/plain/);
    const tail = log.text.trimEnd().split('\n');
    expect(tail).toHaveLength(3);
    expect(tail[1]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\tledger\tlog\tcoder\/task_result=250$/,
    );
    expect(tail[2]).toMatch(/\tledger\tbaseline\torchestration=41000$/);
  });

  it('heimdall-validate: accept, reject; on receipt one retry, then escalate (an escalation Wire and an audit line)', async () => {
    const good = SEED_TASK_RESULT;
    const ok = await api('POST', '/v1/heimdall/validate', ME, good);
    expect(ok.body).toEqual({ valid: true, errors: [] });
    const bad = await api('POST', '/v1/heimdall/validate', ME, {
      ...good,
      status: 'done',
      plan: 'x',
    });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^status: /), expect.stringMatching(/plan/)]),
    );

    const ws = wsId();
    const accepted = await api('POST', `${W(ws)}/messages`, ME, good);
    expect(accepted.status).toBe(201);
    const first = await api('POST', `${W(ws)}/messages`, ME, {
      ...good,
      msg_id: 'm2',
      status: 'done',
    });
    expect(first.status).toBe(422);
    expect(first.body).toMatchObject({ attempt: 1, retry_allowed: true, msg_id: 'm2' });
    // Another sender's bad m2 is its own first attempt.
    expect(
      (await api('POST', `${W(ws)}/messages`, 'agent:x', { ...good, msg_id: 'm2', status: 'done' }))
        .body.attempt,
    ).toBe(1);
    const second = await api('POST', `${W(ws)}/messages`, ME, {
      ...good,
      msg_id: 'm2',
      status: 'nope',
    });
    expect(second.status).toBe(422);
    expect(String(second.body.type)).toMatch(/\/message-escalated$/);
    expect(second.body.attempt).toBe(2);
    const wires = (await api('GET', `/v1/streams/workspace:${ws}/wires`, ME)).body.wires as Json[];
    const escalation = wires.find(
      (w) => w.type === 'message.accepted' && (w.payload as Json).haid === 'system',
    );
    expect((escalation?.payload as Json | undefined)?.message).toMatchObject({
      type: 'escalation',
      severity: 'blocker',
      refs: ['m2'],
      msg_id: second.body.escalation_msg_id,
    });
    const log = (await api('GET', `${W(ws)}/log`, ME)).text.trimEnd().split('\n');
    expect(log.map((l) => l.split('\t').slice(1).join(' '))).toEqual([
      'validate accept m1',
      'validate reject m2',
      'validate reject m2',
      'validate reject m2',
      'validate escalate m2',
    ]);
  });

  it('heimdall-gate to-message: a schema-valid gate_report from report.json, by reference', async () => {
    const report = {
      gate_id: 'exchange-lob',
      status: 'pass',
      wave: 3,
      metrics: { p99_ms: 12, secret_body: 'NEVER INLINE ME' },
    };
    const res = await api('POST', '/v1/heimdall/gate-report', ME, {
      report,
      report_ref: 'evals/oracles/exchange-lob/report.json',
      from: 'sentinel-bloat',
      msg_id: 'g1',
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toEqual({
      type: 'gate_report',
      from: 'sentinel-bloat',
      msg_id: 'g1',
      gate_id: 'exchange-lob',
      status: 'pass',
      wave: 3,
      report_ref: 'evals/oracles/exchange-lob/report.json',
    });
    expect(res.text).not.toContain('NEVER INLINE');
    // | heimdall-validate → valid gate_report
    expect((await api('POST', '/v1/heimdall/validate', ME, res.body.message)).body).toEqual({
      valid: true,
      errors: [],
    });
    const broken = await api('POST', '/v1/heimdall/gate-report', ME, {
      report: { status: 'green' },
      report_ref: 'r.json',
      from: 'x',
      msg_id: 'g2',
    });
    expect(broken.status).toBe(422);
    expect(String(broken.body.detail)).toContain('gate_id');
  });

  it('publishes the message schema (draft-07, $id with 2.0.0) at a stable public URL', async () => {
    const { SELF } = await import('cloudflare:test');
    const res = await SELF.fetch('https://ws.test/v1/schema/heimdall/message-schema.json');
    expect(res.status).toBe(200);
    const schema = (await res.json()) as Json;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(String(schema.$id)).toContain('2.0.0');
    expect(JSON.stringify(schema)).toContain('task_claim');
  });

  it('decisions and conflict records: appended, cross-linked, served as Markdown', async () => {
    const ws = wsId();
    const d = await api('POST', `${W(ws)}/decisions`, 'agent:quinn', {
      title: 'Use LOB',
      body: 'Because.',
      haid: 'agent:quinn/cursor',
    });
    expect(d.status).toBe(201);
    expect(d.body.decision).toMatchObject({ seq: 1, title: 'Use LOB', haid: 'agent:quinn/cursor' });
    const conflict = await api('POST', `${W(ws)}/conflicts`, 'agent:quinn', {
      id: 'c1',
      title: 'Engine rewrite',
      surfaces: ['src/engine/**'],
      displaced_haid: 'agent:ana',
      overriding_intent: 'rewrite the engine',
      displaced_intent: 'tune the engine',
    });
    expect(conflict.status).toBe(201);
    const today = new Date().toISOString().slice(0, 10);
    expect(conflict.body).toEqual({ path: `conflicts/${today}-c1.md`, decision_seq: 2 });
    const md = await api('GET', `${W(ws)}/documents/conflicts/${today}-c1.md`, ME);
    expect(md.type).toMatch(/^text\/markdown/);
    expect(md.text).toContain('rewrite the engine');
    expect(md.text).toContain('agent:ana');
    const log = await api('GET', `${W(ws)}/documents/decisions.md`, ME);
    expect(log.text).toContain('## 2. Conflict: Engine rewrite');
    expect(log.text).toContain(`conflicts/${today}-c1.md`);
    expect(((await api('GET', `${W(ws)}/decisions`, ME)).body.decisions as Json[]).length).toBe(2);
    expect(
      (
        await api('POST', `${W(ws)}/conflicts`, 'agent:quinn', {
          id: 'c1',
          title: 't',
          surfaces: ['a'],
        })
      ).status,
    ).toBe(409);
  });
});

describe('.planning interop', () => {
  it("exports the seed's layout with 2.0.0 stamped, and an import of it round-trips losslessly", async () => {
    const ws = wsId('plan');
    await api('PUT', `${W(ws)}/symbols/F12`, ME, { value: 'src/matching/engine.ts' });
    await api('PUT', `${W(ws)}/symbols/C3`, ME, { value: 'balances sum to zero' });
    await api('PUT', `${W(ws)}/capsules/w1`, ME, {
      what: 'added LOB engine',
      where: 'F12',
      gotcha: 'seed must be fixed',
    });
    await api('PUT', `${W(ws)}/capsules/w2`, ME, {
      what: 'added book diff\nsecond line',
      decision: 'JSON patches',
      depends: ['w1'],
    });
    await api('PUT', `${W(ws)}/blackboard/dev_port`, ME, { value: '5173' });
    await api('POST', `${W(ws)}/ledger/log`, ME, {
      role: 'orchestration',
      kind: 'delta_brief',
      tokens: 3300,
      msg_id: 'b1',
    });
    await api('POST', `${W(ws)}/ledger/log`, ME, {
      role: 'coder',
      kind: 'task_result',
      tokens: 250,
    });
    await api('POST', `${W(ws)}/ledger/baseline`, ME, { role: 'orchestration', tokens: 41000 });
    const exported = await api('GET', `${W(ws)}/export`, ME);
    const files = exported.body.files as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual([
      'blackboard.json',
      'protocol.log',
      'protocol/baselines.json',
      'protocol/capsules/w1.md',
      'protocol/capsules/w2.md',
      'protocol/ledger.jsonl',
      'protocol/message-schema.json',
      'protocol/symbols.json',
    ]);
    for (const f of ['blackboard.json', 'protocol/symbols.json', 'protocol/baselines.json']) {
      expect(JSON.parse(files[f] ?? '{}').version, f).toBe('2.0.0');
    }
    expect(JSON.parse(files['protocol/message-schema.json'] ?? '{}').$id).toContain('2.0.0');
    expect(files['protocol.log']?.split('\n')[0]).toMatch(
      /\tresolve\tset\tF12=src\/matching\/engine.ts$/,
    );

    const copy = wsId('copy');
    const imported = await api('POST', `${W(copy)}/import`, ME, exported.body);
    expect(imported.status).toBe(200);
    const again = (await api('GET', `${W(copy)}/export`, ME)).body.files as Record<string, string>;
    // Every file the same, the audit log and the ledger lines' times included.
    expect(again).toEqual(files);
    expect((await api('GET', `${W(copy)}/ledger/delta?role=orchestration`, ME)).body.line).toBe(
      'orchestration: 41000 -> 3300 tokens (v1 baseline -> measured; -92%)',
    );
    const broken = await api('POST', `${W(wsId('bad'))}/import`, ME, {
      files: { 'protocol/capsules/x.md': 'what: x\ndepends: nope\n' },
    });
    expect(broken.status).toBe(422);
  });
});
