import type { Page } from 'playwright-core';
import { ulid } from 'ulidx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsClient, WirestreamClient } from '../../src/client';
import { launchChromium, type TestBrowser } from '../support/chromium';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

/** Seed 002's run view (its "Option 1") in Chromium, against `wrangler dev`. */

const WRITER = 'agent:writer-ui';
const WORKER = 'agent:worker-ui';
let server: DevServer;
let browser: TestBrowser;
let page: Page;
let writerToken = '';
let writer: RunsClient;
let worker: RunsClient;
let workerClient: WirestreamClient;
const problems: string[] = [];
const run = ulid();

beforeAll(async () => {
  server = await startDevServer();
  writerToken = (await tokenFor(server, WRITER)) ?? '';
  const workerToken = (await tokenFor(server, WORKER)) ?? '';
  writer = new RunsClient(
    new WirestreamClient({ baseUrl: server.url, sender: WRITER, token: writerToken }),
  );
  workerClient = new WirestreamClient({ baseUrl: server.url, sender: WORKER, token: workerToken });
  worker = new RunsClient(workerClient);
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the run view', () => {
  it('shows canon with proposals in gray, seeks revisions, and lets the writer accept', async () => {
    await writer.create({
      run_id: run,
      title: 'HCS ordering',
      sections: [{ id: 'findings', body: 'initial context' }],
      writer: WRITER,
      workers: [WORKER],
    });
    await writer.messageActor(run, {
      type: 'WriterApplyPatch',
      section: 'findings',
      ops: [{ op: 'replace', path: '/body', value: 'live canon' }],
      proposal: false,
    });
    const proposal = await worker.messageActor(run, {
      type: 'WriterAppendNote',
      section: 'findings',
      markdown: 'a finding from the worker',
      proposal: true,
    });
    await page.goto(`${server.url}/#token=${writerToken}`);
    await page.evaluate(`location.hash = '#/runs?run=${run}'`);
    await page.waitForSelector('#rev-label[data-revision="1"]', { timeout: 15_000 });
    expect(await page.textContent('[data-section="findings"] .canon')).toBe('live canon');
    const gray = page.locator(`[data-section="findings"] .proposal[data-status="open"]`);
    expect(await gray.textContent()).toContain('a finding from the worker');
    expect(await gray.getAttribute('style')).toContain('color: gray');

    await page.click('#rev-prev');
    await page.waitForSelector('#rev-label[data-revision="0"]');
    expect(await page.textContent('[data-section="findings"] .canon')).toBe('initial context');
    await page.click('#rev-next');
    await page.waitForSelector('#rev-label[data-revision="1"]');

    await page.click(`[data-section="findings"] .proposal[data-status="open"] .accept`);
    await page.waitForSelector('#rev-label[data-revision="2"]', { timeout: 10_000 });
    expect(await page.textContent('#verdict')).toContain('merged at revision 2');
    expect(await page.textContent('[data-section="findings"] .note')).toBe(
      'a finding from the worker',
    );
    expect(proposal.type).toBe('WriterAck');
    expect(problems).toEqual([]);
  }, 90_000);

  it('sends a comment as a gray proposal and a revision request to the writer', async () => {
    await page.fill('#comment textarea', 'please cite the mirror API');
    await page.click('#send-comment');
    await page.waitForSelector('.proposal[data-status="open"]', { timeout: 10_000 });
    expect(await page.textContent('.proposal[data-status="open"]')).toContain(
      'please cite the mirror API',
    );
    await page.fill('#comment textarea', 'tighten the findings');
    await page.click('#request-revision');
    await page.waitForFunction(
      "document.querySelector('#verdict')?.textContent?.includes('delivered')",
    );
    const mail = await writer.revisions<{ latest_revision: number }>(run);
    expect(mail.latest_revision).toBe(2);
  }, 60_000);

  it('shows worker progress live beside the document', async () => {
    for (let i = 1; i <= 3; i++) {
      await workerClient.append(`run-trace:${run}`, {
        type: 'worker.progress',
        payload: { run_id: run, message: `step ${i}` },
      });
    }
    await page.waitForSelector('#progress[data-count="3"]', { timeout: 10_000 });
    expect(await page.textContent('#progress li:last-child')).toContain('step 3');
    expect(problems).toEqual([]);
  }, 60_000);
});
