import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  RuntimeChannel,
  RuntimeWorker,
  type WebSocketConstructor,
  WirestreamClient,
} from '../../src/client';
import { launchChromium, type TestBrowser, watchedPage } from '../support/chromium';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

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
let server: DevServer;
let browser: TestBrowser;
let page: Page;
let personToken = '';
let sdk: WirestreamClient;
let worker: RuntimeWorker;
const problems: string[] = [];

beforeAll(async () => {
  server = await startDevServer();
  personToken = (await tokenFor(server, PERSON)) ?? '';
  const agentToken = (await tokenFor(server, 'agent:rt-ui-worker')) ?? '';
  sdk = new WirestreamClient({
    baseUrl: server.url,
    token: agentToken,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  await RuntimeChannel.open(
    sdk,
    CHANNEL,
    {
      rules: [
        {
          id: 'research',
          when: { textIncludes: ['investigate'] },
          route: { action: 'spawn_branch' },
        },
      ],
      default: { action: 'respond' },
    },
    8000,
  );
  worker = await RuntimeWorker.spawn(sdk, {
    workerId: WORKER,
    channelId: CHANNEL,
    spec: { goal: 'triage logins', toolset: ['logs'], mode: 'interactive', timeoutSeconds: 600 },
  });
  await worker.progress('waiting', 'ready');
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the Runtime view', () => {
  it('posts a message from the chat and shows the route decision naming its rule', async () => {
    await page.goto(`${server.url}/#token=${personToken}`);
    await page.evaluate(`location.hash = '#/runtime?channel=${CHANNEL}'`);
    await page.waitForSelector(`#runtime-tasks tr[data-id="${WORKER}"][data-status="waiting"]`, {
      timeout: 15_000,
    });
    await page.fill('#runtime-say input', 'investigate the login errors');
    await page.click('#runtime-say button');
    const decided = '#runtime-chat li[data-type="channel.route.decided"]';
    await page.waitForSelector(decided, { timeout: 15_000 });
    expect(await page.textContent(decided)).toMatch(
      new RegExp(`research → spawn_branch ${CHANNEL}-b\\d+`),
    );
    expect(
      await page.textContent('#runtime-chat li[data-type="channel.message.received"]'),
    ).toContain('investigate the login errors');
    await page.waitForSelector('#runtime-tasks tr[data-kind="branch"][data-status="spawned"]', {
      timeout: 15_000,
    });
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
    await page.selectOption('#runtime-say select', WORKER);
    await page.fill('#runtime-say input', 'look at eu-west first');
    await page.click('#runtime-say button');
    expect(await heard).toBe('look at eu-west first');
    await page.waitForSelector(`#runtime-tasks tr[data-id="${WORKER}"][data-status="running"]`, {
      timeout: 15_000,
    });
    const sha = createHash('sha256').update(REPORT_TEXT).digest('hex');
    const up = await fetch(`${server.url}/v1/artifacts?sha256=${sha}&channelId=${CHANNEL}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await sdk.http.token()}`, 'Content-Type': 'text/plain' },
      body: REPORT_TEXT,
    });
    expect(up.status).toBe(201);
    await worker.complete({ summary: 'stale token cache in eu-west', outcome: 'success' }, [
      `sha256-${sha}`,
    ]);
    await page.waitForSelector(`#runtime-tasks tr[data-id="${WORKER}"][data-status="completed"]`, {
      timeout: 15_000,
    });
    expect(await page.textContent('#runtime-chat li[data-type="worker.completed"]')).toContain(
      `${WORKER} stale token cache in eu-west`,
    );
    const activity = await page.$$eval('#runtime-activity li', (items) =>
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

    await page.click(`#runtime-artifacts a[data-artifact="sha256-${sha}"]`);
    await page.waitForSelector('#runtime-artifact pre', { timeout: 15_000 });
    expect(await page.textContent('#runtime-artifact pre')).toBe(REPORT_TEXT);
    expect(await page.getAttribute('#runtime-artifact', 'data-type')).toContain('text/plain');
    expect(problems).toEqual([]);
  }, 60_000);
});
