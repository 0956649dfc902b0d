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
  expect(
    (
      await call(
        'post',
        RELEASE,
        `${base}/claims/release`,
        json({ haid: 'agent:contract-h' }, holder),
      )
    ).status,
  ).toBe(200);
  expect(
    (
      await call(
        'post',
        RELEASE,
        `${base}/claims/release`,
        json({ haid: 'agent:contract-h' }, rival),
      )
    ).status,
  ).toBe(403);
}
