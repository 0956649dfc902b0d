import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WirestreamClient, WorkspaceClient } from '../../src/client';
import { chromiumForFile } from '../support/chromium';
import { devServerForFile, tokenFor } from '../support/dev-server';

/**
 * Seed 001's dashboard views in Chromium, against `wrangler dev`: a workspace
 * filled over REST, and surface claims made, refused and released over REST
 * while the claims view is open — seen without reloading the page.
 */

// Every run saves screenshots under test-results/ (ignored); UPDATE_SCREENSHOT=1
// refreshes the ones the README links.
const SHOTS = path.resolve(
  import.meta.dirname,
  process.env.UPDATE_SCREENSHOT === '1' ? '../../docs' : '../../test-results',
);
const ALICE = 'agent:alice-ui';
const BOB = 'agent:bob-ui';
const suffix = Math.random().toString(36).slice(2, 8);
const problems: string[] = [];
const dev = devServerForFile(ALICE);
const chromium = chromiumForFile(problems);
let aliceToken = '';
let alice: (ws: string) => WorkspaceClient;
let bob: (ws: string) => WorkspaceClient;

/**
 * Opens `hash` (a route, `#/claims?ws=…`) in the dashboard tab with the token
 * among its parameters, and marks the page, so a reload would show. Setting
 * the route after a bare `#token=` raced the shell, which routes to its
 * default view once it has taken the token (seen under load in CI).
 */
async function open(hash: string) {
  await chromium.page.goto(
    `${dev.server.url}/${hash}${hash.includes('?') ? '&' : '?'}token=${aliceToken}`,
  );
  await chromium.page.waitForFunction("!location.hash.includes('token=')");
  await chromium.page.evaluate('window.__sameLoad = true');
}
const sameLoad = () => chromium.page.evaluate('window.__sameLoad === true');
const text = async (selector: string) => (await chromium.page.textContent(selector))?.trim();

beforeAll(async () => {
  aliceToken = dev.token ?? '';
  const bobToken = (await tokenFor(dev.server, BOB)) ?? '';
  const as = (sender: string, token: string) => {
    const client = new WirestreamClient({ baseUrl: dev.server.url, sender, token });
    return (ws: string) => new WorkspaceClient(client, ws);
  };
  alice = as(ALICE, aliceToken);
  bob = as(BOB, bobToken);
});

describe('the workspace view', () => {
  const ws = `ui-ws-${suffix}`;

  it('shows symbols, blackboard, capsule graph, ledger per role with its delta, and the audit tail', async () => {
    const w = alice(ws);
    await w.setSymbol('F12', 'src/matching/engine.ts');
    await w.setSymbol('C3', 'balances sum to zero');
    await w.setFact('dev_port', '5173');
    await w.writeCapsule('w1', { what: 'added LOB engine', where: 'F12' });
    await w.writeCapsule('w2', { what: 'added book diff', where: 'F13', depends: ['w1'] });
    await w.writeCapsule('w3', { what: 'unrelated docs', where: 'README' });
    await w.ledgerBaseline('orchestration', 41000);
    for (const [i, tokens] of [3300, 3300, 3300, 450, 450, 450].entries())
      await w.ledgerLog({ role: 'orchestration', kind: 'delta_brief', tokens, msg_id: `b${i}` });

    // The picker lists the workspaces the read models know: this one opens from there.
    await open('#/workspace');
    await chromium.page.click(`a.known-ws[data-ws="${ws}"]`);
    await chromium.page.waitForSelector('#ws-symbols tr[data-name="F12"]');
    expect(await chromium.page.evaluate('location.hash')).toBe(`#/workspace?ws=${ws}`);
    expect(await text('#ws-symbols tr[data-name="F12"] .value')).toBe('src/matching/engine.ts');
    expect(await text('#ws-symbols tr[data-name="C3"] .value')).toBe('balances sum to zero');
    expect(await text('#ws-blackboard tr[data-name="dev_port"] .value')).toBe('5173');

    // w2 depends on w1, and nothing else depends on anything.
    await chromium.page.waitForSelector('.capsule-node[data-capsule="w3"]');
    const edges = await chromium.page.$$eval('.capsule-edges li[data-from]', (lis) =>
      lis.map((li) => `${li.getAttribute('data-from')}->${li.getAttribute('data-to')}`),
    );
    expect(edges).toEqual(['w2->w1']);
    expect(
      await chromium.page.locator('line.capsule-edge[data-from="w2"][data-to="w1"]').count(),
    ).toBe(1);

    const row = '#ws-ledger tr[data-role="orchestration"]';
    await chromium.page.waitForSelector(`${row} .delta:not(:empty)`);
    expect(await text(`${row} .baseline`)).toBe('41000');
    expect(await text(`${row} .measured`)).toBe('11250');
    expect(await text(`${row} .delta`)).toBe('-73%');
    expect(await text('#ws-ledger .delta-lines')).toBe(
      'orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)',
    );

    const audit = await text('#ws-audit table.audit');
    expect(audit).toContain('resolveset');
    expect(audit).toContain('F12=src/matching/engine.ts');
    expect(audit).toContain('ledgerbaselineorchestration=41000');
    expect(problems).toEqual([]);
  }, 90_000);

  it('draws a fact, a capsule and an audit line set over REST while it is open, without a reload', async () => {
    const w = alice(ws);
    await w.setFact('node_version', '20.11.0');
    await chromium.page.waitForSelector('#ws-blackboard tr[data-name="node_version"]');
    expect(await text('#ws-blackboard tr[data-name="node_version"] .value')).toBe('20.11.0');
    await w.writeCapsule('w4', { what: 'uses both', where: 'F12', depends: ['w2', 'w3'] });
    await chromium.page.waitForSelector('.capsule-edges li[data-from="w4"][data-to="w3"]');
    expect(await chromium.page.locator('.capsule-edges li[data-from="w4"]').count()).toBe(2);
    await chromium.page.waitForFunction(
      "document.querySelector('#ws-audit')?.textContent?.includes('node_version=20.11.0')",
    );
    expect(await sameLoad()).toBe(true);
    await chromium.page.screenshot({
      path: path.join(SHOTS, 'dashboard-workspace.png'),
      fullPage: true,
    });
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('the surface claims view', () => {
  const ws = `ui-claims-${suffix}`;

  it('shows a claim live with holder, globs and expiry, a refusal, and the release', async () => {
    await open(`#/claims?ws=${ws}`);
    await chromium.page.waitForFunction(
      "document.querySelector('#claims-live')?.textContent?.includes('no live claims')",
    );

    const { claim } = await alice(ws).claim({
      surfaces: ['src/a/**'],
      task: 'T-9',
      ttl_minutes: 30,
    });
    const row = `#claims-live tr[data-claim="${claim.claim_id}"]`;
    await chromium.page.waitForSelector(row);
    expect(await text(`${row} .holder`)).toBe(ALICE);
    expect(await text(`${row} .globs`)).toBe('src/a/**');
    expect(await text(`${row} .task`)).toBe('T-9');
    expect(await chromium.page.getAttribute(`${row} .expiry`, 'data-expires')).toBe(
      claim.expires_at,
    );
    expect(await text(`${row} .expiry`)).toMatch(/\(in (29|30) min\)$/);

    const refused = await bob(ws)
      .claim({ surfaces: ['src/a/b.ts'], task: 'T-10' })
      .then(
        () => null,
        (error: { status?: number }) => error,
      );
    expect(refused?.status).toBe(409);
    const refusal = `#claims-refused tr.refusal[data-haid="${BOB}"]`;
    await chromium.page.waitForSelector(refusal);
    expect(await text(`${refusal} .globs`)).toBe('src/a/b.ts');
    expect(await text(`${refusal} .task`)).toBe('T-10');
    expect(await text(`${refusal} .holder`)).toBe(`${ALICE} (T-9)`);
    expect(await text(`${refusal} .holder-globs`)).toBe('src/a/**');
    expect(await text(`${refusal} .expiry`)).toBe(claim.expires_at);
    await chromium.page.screenshot({
      path: path.join(SHOTS, 'dashboard-claims.png'),
      fullPage: true,
    });

    await alice(ws).releaseClaim(String(claim.claim_id));
    await chromium.page.waitForSelector(row, { state: 'detached' });
    await chromium.page.waitForFunction(
      "document.querySelector('#claims-live')?.textContent?.includes('no live claims')",
    );
    expect(await sameLoad()).toBe(true);
    expect(problems).toEqual([]);
  }, 90_000);
});
