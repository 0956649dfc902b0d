import { beforeAll, describe, expect, it } from 'vitest';
import { ProjectClient, WirestreamClient } from '../../src/client';
import { chromiumForFile, openDashboardView } from '../support/chromium';
import { devServerForFile, tokenFor } from '../support/dev-server';

/** Seed 004's GSD view in Chromium, against `wrangler dev`: live feed, plans, claims, decisions, checkpoints. */

const PERSON = 'human:ana';
const EXECUTOR = 'agent:gsd-executor';
const PROJECT = `ui-${Date.now().toString(36)}`;
const problems: string[] = [];
const dev = devServerForFile(PERSON);
const chromium = chromiumForFile(problems);
let personToken = '';
let executor: ProjectClient;
const at = '2024-01-15T10:30:00Z';
/** What the browser logs while the server is down: the outage itself, not a fault of the page. */
const NETWORK = /net::ERR_|WebSocket connection to .* failed/;

beforeAll(async () => {
  personToken = dev.token ?? '';
  const executorToken = (await tokenFor(dev.server, EXECUTOR)) ?? '';
  executor = new ProjectClient(
    new WirestreamClient({ baseUrl: dev.server.url, token: executorToken }),
    PROJECT,
  );
});

describe('the GSD view', () => {
  it('shows the feed, plans, claims, decisions and an awaiting checkpoint', async () => {
    await executor.emit([
      { type: 'plan:waiting', plan: '01-02', waitsOn: ['src/models/user.ts'], timestamp: at },
      {
        type: 'task:started',
        plan: '01-01',
        task: 1,
        taskName: 'Create User model',
        timestamp: at,
      },
      { type: 'file:claimed', path: 'src/api/users.ts', plan: '01-01', timestamp: at },
      {
        type: 'decision:made',
        id: 'dec-001',
        decision: 'Use jose library for JWT',
        rationale: 'Edge runtime compatibility',
        madeBy: '01-01',
        affects: ['02-*'],
        timestamp: at,
      },
      {
        type: 'checkpoint:reached',
        plan: '01-03',
        task: 2,
        checkpointType: 'human-verify',
        awaiting: 'user approval',
        timestamp: at,
      },
    ]);
    await openDashboardView(chromium.page, dev.server.url, personToken, `#/gsd?project=${PROJECT}`);
    await chromium.page.waitForSelector('#gsd-feed[data-count="5"]', { timeout: 15_000 });
    expect(await chromium.page.textContent('#gsd-feed li[data-type="task:started"]')).toContain(
      '01-01 · task 1 · taskName: Create User model',
    );
    expect(
      await chromium.page.getAttribute('#gsd-plans tr[data-plan="01-02"]', 'data-status'),
    ).toBe('waiting');
    expect(
      await chromium.page.textContent('#gsd-claims li[data-path="src/api/users.ts"]'),
    ).toContain(EXECUTOR);
    expect(await chromium.page.textContent('#gsd-decisions')).toContain(
      'Use jose library for JWT — Edge runtime compatibility',
    );
    const checkpoint = '#gsd-checkpoints .checkpoint[data-plan="01-03"]';
    expect(await chromium.page.getAttribute(checkpoint, 'data-status')).toBe('awaiting');
    expect(await chromium.page.textContent(checkpoint)).toContain('awaiting user approval');
    expect(problems).toEqual([]);
  }, 90_000);

  it('follows live: an artifact releases the waiting plan on the page', async () => {
    await executor.emit({
      type: 'artifact:created',
      path: 'src/models/user.ts',
      provides: ['User'],
      createdBy: '01-01',
      timestamp: at,
    });
    await chromium.page.waitForSelector('#gsd-plans tr[data-plan="01-02"][data-status="ready"]', {
      timeout: 15_000,
    });
    expect(
      await chromium.page.textContent('#gsd-feed li[data-type="dependency:satisfied"]'),
    ).toContain('artifact: src/models/user.ts, requiredBy: ["01-02"]');
  }, 60_000);

  it('lets a person approve the checkpoint from the page; the orchestrator hears it', async () => {
    const orchestrator = executor.waitFor(
      { type: 'checkpoint:approved,checkpoint:rejected', planPrefix: '01-03' },
      1,
      30_000,
    );
    await chromium.page.fill('#gsd-checkpoints .checkpoint[data-plan="01-03"] input', 'verified');
    await chromium.page.click('#gsd-checkpoints .checkpoint[data-plan="01-03"] .approve');
    await chromium.page.waitForSelector(
      '#gsd-checkpoints .checkpoint[data-plan="01-03"][data-status="approved"]',
      {
        timeout: 15_000,
      },
    );
    expect(await chromium.page.textContent('#gsd-checkpoints .answer')).toBe(
      `approved by ${PERSON}: verified`,
    );
    const heard = await orchestrator;
    expect(heard.met).toBe(true);
    expect(heard.events[0]).toMatchObject({
      type: 'checkpoint:approved',
      plan: '01-03',
      task: 2,
      comment: 'verified',
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it('keeps the project while the server is away, says a failed approve beside it, and is live again once back', async () => {
    const page = chromium.page;
    await executor.emit({
      type: 'checkpoint:reached',
      plan: '01-04',
      task: 1,
      checkpointType: 'human-verify',
      awaiting: 'a second look',
      timestamp: at,
    });
    const checkpoint = '#gsd-checkpoints .checkpoint[data-plan="01-04"]';
    await page.waitForSelector(`${checkpoint}[data-status="awaiting"]`, { timeout: 15_000 });
    const shown = await page.getAttribute('#gsd-feed', 'data-count');
    await dev.server.down();
    try {
      await page.click(`${checkpoint} .approve`);
      const refused = await page.waitForSelector('#gsd-refused', { timeout: 60_000 });
      expect(await refused.textContent()).toMatch(
        /^checkpoint:approved not sent: server unreachable \(/,
      );
      await page.waitForSelector('#unreachable', { timeout: 30_000 });
      // The last known state stays, not "server unreachable" in place of the project.
      expect(await page.getAttribute('#gsd-feed', 'data-count')).toBe(shown);
      expect(await page.getAttribute(checkpoint, 'data-status')).toBe('awaiting');
      expect(await page.$('#gsd-plans tr[data-plan="01-02"]')).not.toBeNull();
      expect(await page.$('#gsd-error')).toBeNull();
    } finally {
      await dev.server.up();
    }
    // Back on the same port and state: the shell stops saying so once the feed is live again,
    // and the same button works.
    await page.waitForSelector('#unreachable', { state: 'detached', timeout: 60_000 });
    await page.click(`${checkpoint} .approve`);
    await page.waitForSelector(`${checkpoint}[data-status="approved"]`, { timeout: 30_000 });
    expect(await page.$('#gsd-refused')).toBeNull();
    expect(problems.filter((p) => !NETWORK.test(p))).toEqual([]);
  }, 180_000);
});
