import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  RuntimeChannel,
  RuntimeWorker,
  type WebSocketConstructor,
  WirestreamClient,
} from '../../src/client';
import { chromiumForFile, openDashboardView } from '../support/chromium';
import { devServerForFile, tokenFor } from '../support/dev-server';

/**
 * Seed 003's Runtime view in Chromium, against `wrangler dev` (FR-10): chat
 * with a channel (the route decision appears), a message routed to an
 * interactive worker from the page changes the worker's live status, its
 * completion shows as a reply and in the activity feed, and its artifact
 * opens in the viewer with the bytes stored in R2.
 */
const PERSON = 'human:rt-ui';
const CHANNEL = `ui-${Date.now().toString(36)}`;
const WORKER = `${CHANNEL}-helper`;
const REPORT_TEXT = 'eu-west token cache is stale\n';
const problems: string[] = [];
const dev = devServerForFile('agent:rt-ui-worker');
const chromium = chromiumForFile(problems);
let personToken = '';
let sdk: WirestreamClient;
let worker: RuntimeWorker;

beforeAll(async () => {
  personToken = (await tokenFor(dev.server, PERSON)) ?? '';
  sdk = new WirestreamClient({
    baseUrl: dev.server.url,
    token: dev.token,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  const research = { id: 'research', when: { textIncludes: ['investigate'] } };
  await RuntimeChannel.open(
    sdk,
    CHANNEL,
    { rules: [{ ...research, route: { action: 'spawn_branch' } }], default: { action: 'respond' } },
    8000,
  );
  worker = await RuntimeWorker.spawn(sdk, {
    workerId: WORKER,
    channelId: CHANNEL,
    spec: { goal: 'triage logins', toolset: ['logs'], mode: 'interactive', timeoutSeconds: 600 },
  });
  await worker.progress('waiting', 'ready');
}, 60_000);

describe('the Runtime view', () => {
  it('posts a message from the chat and shows the route decision naming its rule', async () => {
    await openDashboardView(chromium.page, dev.server.url, personToken, '#/runtime');
    // The channel is opened from the view's picker, as a person would.
    await chromium.page.fill('#runtime form.picker input[name="channel"]', CHANNEL);
    await chromium.page.click('#runtime form.picker button');
    await chromium.page.waitForSelector(
      `#runtime-tasks tr[data-id="${WORKER}"][data-status="waiting"]`,
      {
        timeout: 15_000,
      },
    );
    await chromium.page.fill('#runtime-say input', 'investigate the login errors');
    await chromium.page.click('#runtime-say button');
    const decided = '#runtime-chat li[data-type="channel.route.decided"]';
    await chromium.page.waitForSelector(decided, { timeout: 15_000 });
    expect(await chromium.page.textContent(decided)).toMatch(
      new RegExp(`research → spawn_branch ${CHANNEL}-b\\d+`),
    );
    expect(
      await chromium.page.textContent('#runtime-chat li[data-type="channel.message.received"]'),
    ).toContain('investigate the login errors');
    await chromium.page.waitForSelector(
      '#runtime-tasks tr[data-kind="branch"][data-status="spawned"]',
      {
        timeout: 15_000,
      },
    );
    expect(problems).toEqual([]);
  }, 60_000);

  it('routes a message to the interactive worker; its status and reply show live', async () => {
    const heard = new Promise<string>((resolve) => {
      const sub = worker.onMessage(async (m) => {
        await worker.progress('running', `on it: ${m.text}`);
        sub.close();
        resolve(m.text);
      });
    });
    await chromium.page.selectOption('#runtime-say select', WORKER);
    await chromium.page.fill('#runtime-say input', 'look at eu-west first');
    await chromium.page.click('#runtime-say button');
    expect(await heard).toBe('look at eu-west first');
    await chromium.page.waitForSelector(
      `#runtime-tasks tr[data-id="${WORKER}"][data-status="running"]`,
      {
        timeout: 15_000,
      },
    );
    const sha = createHash('sha256').update(REPORT_TEXT).digest('hex');
    const up = await fetch(`${dev.server.url}/v1/artifacts?sha256=${sha}&channelId=${CHANNEL}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await sdk.http.token()}`, 'Content-Type': 'text/plain' },
      body: REPORT_TEXT,
    });
    expect(up.status).toBe(201);
    await worker.complete({ summary: 'stale token cache in eu-west', outcome: 'success' }, [
      `sha256-${sha}`,
    ]);
    await chromium.page.waitForSelector(
      `#runtime-tasks tr[data-id="${WORKER}"][data-status="completed"]`,
      {
        timeout: 15_000,
      },
    );
    expect(
      await chromium.page.textContent('#runtime-chat li[data-type="worker.completed"]'),
    ).toContain(`${WORKER} stale token cache in eu-west`);
    const activity = await chromium.page.$$eval('#runtime-activity li', (items) =>
      items.map((li) => li.getAttribute('data-type')),
    );
    expect(activity).toEqual(
      expect.arrayContaining([
        'worker.spawned',
        'worker.progress',
        'worker.completed',
        'channel.route.decided',
      ]),
    );

    await chromium.page.click(`#runtime-artifacts a[data-artifact="sha256-${sha}"]`);
    await chromium.page.waitForSelector('#runtime-artifact pre', { timeout: 15_000 });
    expect(await chromium.page.textContent('#runtime-artifact pre')).toBe(REPORT_TEXT);
    expect(await chromium.page.getAttribute('#runtime-artifact', 'data-type')).toContain(
      'text/plain',
    );
    expect(problems).toEqual([]);
  }, 60_000);
});
