import { createRequire } from 'node:module';
import path from 'node:path';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { WirestreamClient } from '../../src/client';
import { devBanner, devToken } from '../../tools/dev-tokens.mjs';
import { chromiumForFile } from '../support/chromium';
import { devServerForFile, tokenFor } from '../support/dev-server';

/**
 * Issue 33's console, points 4 and 6, in Chromium against `wrangler dev`:
 * getting in (the link `npm start` prints, no token, a refused token, a token
 * without `read`, who it signs in as, a `#token=` pasted into an open tab) and
 * the server going away and coming back (the same port and state).
 */

const TOKEN_SECRET = `test-secret-${Math.random().toString(36).slice(2)}`;
const P = `acc${Date.now().toString(36)}`;
const problems: string[] = [];
const dev = devServerForFile('human:operator', 90_000, { TOKEN_SECRET });
const chromium = chromiumForFile(problems);
/** While the server is down the browser logs each refused connection: the outage itself. */
const NETWORK = /net::ERR_|WebSocket connection to .* failed/;

/** Screenshots for a person to look at (test-results/, not checked in). */
const shot = (name: string) =>
  chromium.page.screenshot({
    path: path.resolve(import.meta.dirname, `../../test-results/console-access-${name}.png`),
  });
/** axe-core's serious and critical violations on the page as it is (axe from node_modules, offline). */
async function seriousViolations(): Promise<string[]> {
  await chromium.page.addScriptTag({
    path: createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  });
  return (await chromium.page.evaluate(
    "axe.run(document).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ' at ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))",
  )) as string[];
}
const card = (task: string) => `#task-board .card[data-task-id="${P}-${task}"]`;
const text = async (selector: string) =>
  ((await chromium.page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

/** The coordinator plans and offers `task` of project P (attempt 1). */
async function offer(task: string) {
  const sender = 'coordinator:acc';
  const t = (await tokenFor(dev.server, sender, ['coordinator'])) ?? '';
  const planner = new WirestreamClient({ baseUrl: dev.server.url, sender, token: t });
  const id = `${P}-${task}`;
  await planner.append(`project:${P}`, {
    type: 'task.created',
    payload: { task_id: id, role: 'developer', title: `Task ${task}` },
  });
  await planner.append(`task:${id}:attempt:1`, {
    type: 'task.available',
    correlation_id: `project:${P}`,
    payload: { task_id: id, role: 'developer', attempt: 1 },
  });
}

/** Opens `hash` in a tab that has no token yet (a fresh document, its session storage empty). */
async function openWithoutToken(hash: string) {
  const page = chromium.page;
  await page.goto(`${dev.server.url}/`);
  await page.evaluate('sessionStorage.clear()');
  await page.goto(`${dev.server.url}/${hash}`);
  await page.reload();
}

/** Opens the project with `token` in the address, as a link would. */
async function openWith(token: string) {
  await chromium.page.goto(`${dev.server.url}/#/coordination?project=${P}&token=${token}`);
  await chromium.page.reload();
}

describe('getting in (issue 33, point 4)', () => {
  it('npm start prints the dashboard’s address with a read token; the link signs in as human:dev', async () => {
    const banner = await devBanner(dev.server.url, {
      tokenSecret: TOKEN_SECRET,
      adminToken: dev.server.adminToken,
    });
    console.log(banner);
    const link = /^dashboard .*:\n\s+(\S+)$/m.exec(banner)?.[1] ?? '';
    expect(link.startsWith(`${dev.server.url}/#token=`)).toBe(true);
    const page = chromium.page;
    await page.goto(link);
    await page.waitForSelector('#signed-in[data-state="ok"]', { timeout: 20_000 });
    expect(await text('#signed-in')).toBe('Signed in as human:dev (scopes read)');
    // The token left the address (and so the history); the view is shown.
    expect(new URL(page.url()).hash).toBe('#/coordination');
    expect(await page.$('#access')).toBeNull();
    expect(problems).toEqual([]);
  }, 60_000);

  it('without a token, a panel says one is needed (not an error in a pill beside "Pick a project…")', async () => {
    await openWithoutToken(`#/coordination?project=${P}`);
    await chromium.page.waitForSelector('#access[data-state="none"]', { timeout: 20_000 });
    expect(await text('#access-title')).toBe('A token is needed');
    expect(await text('#access-why')).toContain('Open the dashboard link that npm start prints');
    expect(await text('#signed-in')).toBe('no token');
    await shot('no-token');
    expect(await seriousViolations()).toEqual([]);
    expect(await chromium.page.$('#feed-empty')).toBeNull();
    expect(await chromium.page.$('#task-board')).toBeNull();
    // The panel's own field lets one in.
    await chromium.page.fill('#access input[name="token"]', dev.token ?? '');
    await chromium.page.press('#access input[name="token"]', 'Enter');
    await chromium.page.waitForSelector('#signed-in[data-state="ok"]', { timeout: 20_000 });
    await chromium.page.waitForSelector('#pick', { timeout: 20_000 });
    expect(await chromium.page.$('#access')).toBeNull();
    expect(problems).toEqual([]);
  }, 60_000);

  it('a wrong or expired token is "not accepted", saying why; one without read scope is told apart', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      {
        token: await devToken('another-deployments-secret', 'human:stranger', ['read']),
        state: 'rejected',
        title: 'This token was not accepted',
        why: 'this token was not accepted: the token is not valid (bad signature, key or format)',
      },
      {
        token: await sign(
          { sub: 'human:late', roles: [], scopes: ['read'], iat: now - 7200, exp: now - 3600 },
          TOKEN_SECRET,
          'HS256',
        ),
        state: 'rejected',
        title: 'This token was not accepted',
        why: 'this token was not accepted: the token has expired',
      },
      {
        token: await devToken(TOKEN_SECRET, 'agent:writer', ['append']),
        state: 'forbidden',
        title: 'This token cannot read',
        why: 'agent:writer was accepted, but it lacks the read scope every view needs (the token\'s scopes [append] do not include "read")',
      },
    ];
    for (const c of cases) {
      await openWith(c.token);
      await chromium.page.waitForSelector(`#access[data-state="${c.state}"]`, { timeout: 20_000 });
      expect(await text('#access-title')).toBe(c.title);
      expect(await text('#access-why')).toContain(c.why);
      await shot(c.state);
      expect(await text('#signed-in')).toBe(
        c.state === 'rejected' ? 'token not accepted' : 'token cannot read',
      );
    }
    // The browser logs the refused check (401/403) itself; nothing else went wrong.
    expect(problems.filter((p) => !/status of 40[13]/.test(p))).toEqual([]);
    problems.length = 0;
  }, 60_000);

  it('a token that expires while the tab is open is then diagnosed as expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'human:brief', roles: [], scopes: ['read'], iat: now, exp: now + 5 };
    await openWith(await sign(claims, TOKEN_SECRET, 'HS256'));
    await chromium.page.waitForSelector('#signed-in[data-state="ok"]', { timeout: 20_000 });
    expect(await text('#signed-in')).toBe('Signed in as human:brief (scopes read)');
    // The view's next read after the expiry is refused; the panel says why.
    await chromium.page.waitForSelector('#access[data-state="rejected"]', { timeout: 30_000 });
    expect(await text('#access-why')).toContain(
      'this token was not accepted: the token has expired',
    );
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    problems.length = 0;
  }, 60_000);

  it('a #token= pasted into the open tab is taken, leaves the address, and the view reads with it', async () => {
    await offer('one');
    const page = chromium.page;
    // The tab shows the project, refused (the case above); the same document from here on.
    await page.waitForSelector('#access[data-state="rejected"]');
    await page.evaluate('window.__sameDocument = true');
    await page.evaluate(`location.hash = 'token=${dev.token}'`);
    await page.waitForSelector('#signed-in[data-state="ok"]', { timeout: 20_000 });
    expect(await text('#signed-in')).toBe(
      'Signed in as human:operator (roles developer · scopes append, read, claim)',
    );
    await page.waitForSelector(card('one'), { timeout: 20_000 });
    await page.waitForSelector('#wires tr[data-seq="1"]', { timeout: 20_000 });
    expect(await page.evaluate('location.hash')).toBe(`#/coordination?project=${P}`);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await page.$('#access')).toBeNull();
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('when the server is down (issue 33, point 6)', () => {
  it('keeps the board, agents and feed, says since when and when it tries again; refreshes once back', async () => {
    const page = chromium.page;
    const sender = 'agent:ivo-01';
    const agentToken = (await tokenFor(dev.server, sender)) ?? '';
    const agent = new WirestreamClient({ baseUrl: dev.server.url, sender, token: agentToken });
    await agent.append('agent:ivo-01', { type: 'agent.started', payload: { role: 'developer' } });
    await offer('steady');
    await openWith(dev.token ?? '');
    await page.waitForSelector(card('steady'), { timeout: 20_000 });
    await page.waitForSelector('#agent-list .agent[data-agent-id="ivo-01"]', { timeout: 20_000 });
    await page.waitForSelector('#conn[data-state="live"]', { timeout: 20_000 });
    const rows = await page.$$eval('#wires tbody tr', (r) => r.length);

    await dev.server.down();
    const notice = await page.waitForSelector('#unreachable', { timeout: 30_000 });
    // Two failed tries at least, so the board has been asked again in vain meanwhile.
    await page.waitForFunction(
      "Number(document.querySelector('#conn')?.dataset.tries) >= 3",
      null,
      { timeout: 60_000 },
    );
    await shot('server-down');
    expect(await seriousViolations()).toEqual([]);
    const since = ((await notice.textContent()) ?? '').replace(/\s+/g, ' ').trim();
    console.log(`while down: "${since}" / "${await text('#conn')}"`);
    expect(since).toMatch(
      /^server unreachable since \d{1,2}:\d{2}:\d{2}( [AP]M)? \(\d+ s ago\): showing the last known state$/,
    );
    expect(await text('#conn')).toMatch(
      /^reconnecting… try \d+ (in \d+ s|under way) \(\d+ failed\)$/,
    );
    expect(await page.getAttribute('#view', 'data-stale')).toBe('true');
    // The last known state, not "unavailable (network: Failed to fetch)".
    expect(await text(card('steady'))).toContain('Task steady');
    expect(await page.$('#agent-list .agent[data-agent-id="ivo-01"]')).not.toBeNull();
    expect(await page.$$eval('#wires tbody tr', (r) => r.length)).toBe(rows);
    for (const panel of ['#task-board', '#agent-list'])
      expect(await text(panel)).not.toMatch(/unavailable|unreachable|Failed to fetch/);

    // Back on the same port and state, with a task planned meanwhile: the board
    // reads again as soon as the feed is live, not at its next turn.
    await page.evaluate(`window.__live = 0;
      new MutationObserver(() => {
        if (document.querySelector('#conn')?.dataset.state === 'live') window.__live ||= Date.now();
      }).observe(document.querySelector('#conn'), { attributes: true });`);
    const reads: number[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/v1/tasks?') && res.status() === 200) reads.push(Date.now());
    });
    await dev.server.up();
    await offer('back');
    await page.waitForSelector('#conn[data-state="live"]', { timeout: 60_000 });
    await page.waitForSelector(card('back'), { timeout: 30_000 });
    await page.waitForSelector('#unreachable', { state: 'detached', timeout: 30_000 });
    expect(await page.getAttribute('#view', 'data-stale')).toBeNull();
    expect(await text(card('back'))).toContain('Task back');
    const live = (await page.evaluate('window.__live')) as number;
    const reread = reads.find((at) => at >= live) ?? Number.NaN;
    console.log(`the board read the server again ${reread - live} ms after the feed went live`);
    expect(problems.filter((p) => !NETWORK.test(p))).toEqual([]);
  }, 180_000);
});
