import { expect } from 'vitest';
import { authHeaders } from './auth';
import { call } from './contract';

/**
 * Seed 001's routes called through the contract checker (api-contract.test.ts
 * runs this): a success and, where documented, an error for each.
 */

const ADMIN = { Authorization: 'Bearer test-admin-token-not-for-production' };

function json(body: unknown, headers: Record<string, string>): RequestInit {
  return {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export async function exerciseHeimdall(ws: string): Promise<void> {
  const holder = await authHeaders('agent:contract-h', ['append', 'read', 'claim']);
  const rival = await authHeaders('agent:contract-r', ['append', 'read', 'claim']);
  const base = `/v1/workspaces/${ws}`;
  const CLAIMS = '/v1/workspaces/{ws}/claims';
  const made = await call(
    'post',
    CLAIMS,
    `${base}/claims`,
    json({ surfaces: ['src/**'], task: 'T' }, holder),
  );
  expect(made.status).toBe(201);
  const id = String((made.body as { claim: { claim_id: string } }).claim.claim_id);
  expect(
    (
      await call(
        'post',
        CLAIMS,
        `${base}/claims`,
        json({ surfaces: ['src/a.ts'], task: 'U' }, rival),
      )
    ).status,
  ).toBe(409);
  expect(
    (await call('post', CLAIMS, `${base}/claims`, json({ surfaces: ['!x'], task: 'U' }, rival)))
      .status,
  ).toBe(422);
  expect((await call('get', CLAIMS, `${base}/claims`, { headers: holder })).status).toBe(200);
  expect((await call('get', CLAIMS, '/v1/workspaces/BAD/claims', { headers: holder })).status).toBe(
    400,
  );
  const REFUSALS = '/v1/workspaces/{ws}/claims/refusals';
  expect((await call('get', REFUSALS, `${base}/claims/refusals`, { headers: holder })).status).toBe(
    200,
  );
  expect((await call('get', REFUSALS, `${base}/claims/refusals`)).status).toBe(401);
  const RENEW = '/v1/workspaces/{ws}/claims/{claim_id}/renew';
  expect(
    (await call('post', RENEW, `${base}/claims/${id}/renew`, json({ ttl_minutes: 10 }, holder)))
      .status,
  ).toBe(200);
  expect((await call('post', RENEW, `${base}/claims/${id}/renew`, json({}, rival))).status).toBe(
    403,
  );
  const FORCE = '/v1/workspaces/{ws}/claims/{claim_id}/force-release';
  expect(
    (await call('post', FORCE, `${base}/claims/${id}/force-release`, json({ reason: 'r' }, rival)))
      .status,
  ).toBe(403);
  expect(
    (
      await call(
        'post',
        FORCE,
        `${base}/claims/${id}/force-release`,
        json({ reason: 'stuck' }, ADMIN),
      )
    ).status,
  ).toBe(200);
  const again = await call(
    'post',
    CLAIMS,
    `${base}/claims`,
    json({ surfaces: ['lib/**'], task: 'V' }, holder),
  );
  const id2 = String((again.body as { claim: { claim_id: string } }).claim.claim_id);
  const ONE = '/v1/workspaces/{ws}/claims/{claim_id}';
  expect((await call('delete', ONE, `${base}/claims/${id2}`, { headers: rival })).status).toBe(403);
  expect((await call('delete', ONE, `${base}/claims/${id2}`, { headers: holder })).status).toBe(
    200,
  );
  const RELEASE = '/v1/workspaces/{ws}/claims/release';
  const release = async (as: Record<string, string>) =>
    (await call('post', RELEASE, `${base}/claims/release`, json({ haid: 'agent:contract-h' }, as)))
      .status;
  expect(await release(holder)).toBe(200);
  expect(await release(rival)).toBe(403);
}

/** The workspace routes: each called for a success, then without a token (401). */
export async function exerciseWorkspace(ws: string): Promise<void> {
  const me = await authHeaders('agent:contract-w', ['append', 'read', 'claim']);
  const b = `/v1/workspaces/${ws}`;
  const P = '/v1/workspaces/{ws}';
  const today = new Date().toISOString().slice(0, 10);
  const calls: [method: 'get' | 'post' | 'put', template: string, url: string, body?: unknown][] = [
    ['put', `${P}/symbols/{id}`, `${b}/symbols/F12`, { value: 'src/matching/engine.ts' }],
    ['get', `${P}/symbols`, `${b}/symbols`],
    ['get', `${P}/symbols/{id}`, `${b}/symbols/F12`],
    ['put', `${P}/blackboard/{key}`, `${b}/blackboard/dev_port`, { value: '5173' }],
    ['get', `${P}/blackboard`, `${b}/blackboard`],
    ['get', `${P}/blackboard/{key}`, `${b}/blackboard/dev_port`],
    ['put', `${P}/capsules/{id}`, `${b}/capsules/w1`, { what: 'added LOB engine', where: 'F12' }],
    ['get', `${P}/capsules`, `${b}/capsules`],
    ['get', `${P}/capsules/hydrate`, `${b}/capsules/hydrate?ids=w1`],
    ['get', `${P}/capsules/{id}`, `${b}/capsules/w1`],
    ['get', `${P}/capsules/{id}/hydrate`, `${b}/capsules/w1/hydrate`],
    ['get', `${P}/capsules/{id}/deps`, `${b}/capsules/w1/deps`],
    [
      'post',
      `${P}/briefs`,
      `${b}/briefs`,
      { task: '3.2', spec: 'implement', symbols: ['F12'], capsules: ['w1'] },
    ],
    [
      'post',
      `${P}/ledger/log`,
      `${b}/ledger/log`,
      { role: 'orchestration', kind: 'delta_brief', tokens: 10 },
    ],
    [
      'post',
      `${P}/ledger/baseline`,
      `${b}/ledger/baseline`,
      { role: 'orchestration', tokens: 100 },
    ],
    ['get', `${P}/ledger/delta`, `${b}/ledger/delta?role=orchestration`],
    ['get', `${P}/ledger/report`, `${b}/ledger/report`],
    [
      'post',
      `${P}/messages`,
      `${b}/messages`,
      { type: 'question', from: 'coder', msg_id: 'q1', question: 'why?' },
    ],
    ['post', `${P}/decisions`, `${b}/decisions`, { title: 't', body: 'b' }],
    ['get', `${P}/decisions`, `${b}/decisions`],
    ['post', `${P}/conflicts`, `${b}/conflicts`, { id: 'c1', title: 't', surfaces: ['a/**'] }],
    ['get', `${P}/documents/decisions.md`, `${b}/documents/decisions.md`],
    ['get', `${P}/documents/conflicts/{file}`, `${b}/documents/conflicts/${today}-c1.md`],
    ['get', `${P}/log`, `${b}/log?n=5`],
    ['get', `${P}/export`, `${b}/export`],
    [
      'post',
      `${P}/import`,
      `${b}-copy/import`,
      { files: { 'protocol/symbols.json': '{"symbols":{"A":"a"}}' } },
    ],
    ['post', '/v1/heimdall/validate', '/v1/heimdall/validate', { type: 'question' }],
    [
      'post',
      '/v1/heimdall/gate-report',
      '/v1/heimdall/gate-report',
      { report: { gate_id: 'g', status: 'pass' }, report_ref: 'r.json', from: 'x', msg_id: 'g1' },
    ],
  ];
  for (const [method, template, url, body] of calls) {
    const init = body === undefined ? { headers: me } : json(body, me);
    const ok = await call(method, template, url, init);
    expect(ok.status, `${method} ${url}`).toBeLessThan(300);
    const anon = body === undefined ? {} : json(body, {});
    expect((await call(method, template, url, anon)).status, `${method} ${url} anonymous`).toBe(
      401,
    );
  }
  const schema = '/v1/schema/heimdall/message-schema.json';
  expect((await call('get', schema, schema)).status).toBe(200);
}
