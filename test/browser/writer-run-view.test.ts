import { ulid } from 'ulidx';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunsClient, WirestreamClient } from '../../src/client';
import { chromiumForFile, openDashboardView } from '../support/chromium';
import { devServerForFile, tokenFor } from '../support/dev-server';

/** Seed 002's run view (its "Option 1") in Chromium, against `wrangler dev`. */

const WRITER = 'agent:writer-ui';
const WORKER = 'agent:worker-ui';
const problems: string[] = [];
const dev = devServerForFile(WRITER);
const chromium = chromiumForFile(problems);
let writerToken = '';
let writer: RunsClient;
let worker: RunsClient;
let workerClient: WirestreamClient;
const run = ulid();

beforeAll(async () => {
  writerToken = dev.token ?? '';
  const workerToken = (await tokenFor(dev.server, WORKER)) ?? '';
  writer = new RunsClient(
    new WirestreamClient({ baseUrl: dev.server.url, sender: WRITER, token: writerToken }),
  );
  workerClient = new WirestreamClient({
    baseUrl: dev.server.url,
    sender: WORKER,
    token: workerToken,
  });
  worker = new RunsClient(workerClient);
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
    await openDashboardView(chromium.page, dev.server.url, writerToken, `#/runs?run=${run}`);
    await chromium.page.waitForSelector('#rev-label[data-revision="1"]', { timeout: 15_000 });
    expect(await chromium.page.textContent('[data-section="findings"] .canon')).toBe('live canon');
    const gray = chromium.page.locator(`[data-section="findings"] .proposal[data-status="open"]`);
    expect(await gray.textContent()).toContain('a finding from the worker');
    expect(await gray.getAttribute('style')).toContain('color: gray');

    await chromium.page.click('#rev-prev');
    await chromium.page.waitForSelector('#rev-label[data-revision="0"]');
    expect(await chromium.page.textContent('[data-section="findings"] .canon')).toBe(
      'initial context',
    );
    await chromium.page.click('#rev-next');
    await chromium.page.waitForSelector('#rev-label[data-revision="1"]');

    await chromium.page.click(`[data-section="findings"] .proposal[data-status="open"] .accept`);
    await chromium.page.waitForSelector('#rev-label[data-revision="2"]', { timeout: 10_000 });
    expect(await chromium.page.textContent('#verdict')).toContain('merged at revision 2');
    expect(await chromium.page.textContent('[data-section="findings"] .note')).toBe(
      'a finding from the worker',
    );
    expect(proposal.type).toBe('WriterAck');
    expect(problems).toEqual([]);
  }, 90_000);

  it('sends a comment as a gray proposal and a revision request to the writer', async () => {
    await chromium.page.fill('#comment textarea', 'please cite the mirror API');
    await chromium.page.click('#send-comment');
    await chromium.page.waitForSelector('.proposal[data-status="open"]', { timeout: 10_000 });
    expect(await chromium.page.textContent('.proposal[data-status="open"]')).toContain(
      'please cite the mirror API',
    );
    await chromium.page.fill('#comment textarea', 'tighten the findings');
    await chromium.page.click('#request-revision');
    await chromium.page.waitForFunction(
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
    await chromium.page.waitForSelector('#progress[data-count="3"]', { timeout: 10_000 });
    expect(await chromium.page.textContent('#progress li:last-child')).toContain('step 3');
    expect(problems).toEqual([]);
  }, 60_000);

  it('keeps the document while the server is away; a comment that could not be sent keeps its text', async () => {
    const page = chromium.page;
    const revision = await page.getAttribute('#rev-label', 'data-revision');
    await dev.server.down();
    try {
      await page.fill('#comment textarea', 'sent once the server is back');
      await page.click('#send-comment');
      await page.waitForFunction(
        "document.querySelector('#verdict')?.textContent?.startsWith('WriterAppendNote not sent: server unreachable')",
        null,
        { timeout: 60_000 },
      );
      await page.waitForSelector('#unreachable', { timeout: 30_000 });
      expect(await page.inputValue('#comment textarea')).toBe('sent once the server is back');
      expect(await page.getAttribute('#rev-label', 'data-revision')).toBe(revision);
    } finally {
      await dev.server.up();
    }
    await page.waitForSelector('#unreachable', { state: 'detached', timeout: 60_000 });
    await page.click('#send-comment');
    await page.waitForSelector('.proposal:has-text("sent once the server is back")', {
      timeout: 30_000,
    });
    expect(await page.inputValue('#comment textarea')).toBe('');
    // The outage itself is all the browser logged: no unhandled rejection from the failed send.
    expect(problems.filter((p) => !/net::ERR_|WebSocket connection to .* failed/.test(p))).toEqual(
      [],
    );
  }, 180_000);
});
