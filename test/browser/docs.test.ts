import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/chromium';
import { devServerForFile } from '../support/dev-server';

const SCREENSHOT = path.resolve(import.meta.dirname, '../../test-results/docs.png');
const SENDER = 'agent:docs-reader';

const dev = devServerForFile(SENDER, 120_000);
let browser: TestBrowser;
let page: Page;
let token = '';
const problems: string[] = [];
/** Every URL the page asked for. */
const requested: string[] = [];
const stream = `project:docs${Date.now().toString(36)}`;

beforeAll(async () => {
  token = dev.token ?? '';
  const res = await fetch(`${dev.server.url}/v1/streams/${encodeURIComponent(stream)}/wires`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      wire: '1.1',
      wire_id: `wire_docs_${Date.now().toString(36)}`,
      stream_id: stream,
      type: 'review.concern',
      sender: SENDER,
      ts: new Date().toISOString(),
      payload: { concern: 'docs' },
    }),
  });
  expect(res.status).toBe(201);
  // Chromium as every browser test starts it; this page also counts warnings.
  browser = await launchChromium({ width: 1280, height: 900 });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') {
      problems.push(`console ${msg.type()}: ${msg.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('request', (request) => requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Opens an operation's "Try it", fills its inputs by name and sends. */
async function tryIt(operationId: string, values: Record<string, string>, button: string) {
  const section = page.locator(`section#${operationId}`);
  await section.locator('details > summary', { hasText: 'Try it' }).click();
  for (const [name, value] of Object.entries(values)) {
    await section.locator(`form.try input[name="${name}"]`).fill(value);
  }
  await section.getByRole('button', { name: button }).click();
  const out = section.locator('form.try pre');
  await page.waitForFunction(
    (el) => el !== null && el.textContent !== '…' && el.textContent !== '',
    await out.elementHandle(),
    { timeout: 15_000 },
  );
  return (await out.textContent()) ?? '';
}

describe('the API reference at /docs', () => {
  it('renders every operation from /v1/openapi.json with no console errors and no network beyond 127.0.0.1', async () => {
    const res = await page.goto(`${dev.server.url}/docs`);
    expect(res?.status()).toBe(200);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
    const doc = (await (await fetch(`${dev.server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item)).length;
    expect(await page.locator('section.op').count()).toBe(operations);
    expect(await page.locator('nav a').count()).toBe(operations);
    await expect
      .poll(() => page.locator('section#appendWire h3 .path').textContent())
      .toBe('/v1/streams/{stream_id}/wires');
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(problems).toEqual([]);
    const outside = requested.filter((url) => !url.startsWith('http://127.0.0.1:'));
    expect(outside).toEqual([]);
  }, 60_000);

  it('tries a read with the pasted token and shows the answer', async () => {
    await page.fill('#token', token);
    await page.dispatchEvent('#token', 'change');
    const shown = await tryIt('readStream', { stream_id: stream, limit: '10' }, 'Send');
    expect(shown).toMatch(/^200 /);
    expect(shown).toContain('"next_after_seq": null');
    expect(shown).toContain('review.concern');
    expect(problems).toEqual([]);
  }, 60_000);

  it('opens a WebSocket with a ticket and shows its frames', async () => {
    const shown = await tryIt(
      'followStream',
      { stream_id: stream, after_seq: '0' },
      'Connect for 5 s',
    );
    expect(shown).toContain('"kind":"hello"');
    expect(shown).toContain('"kind":"caught-up"');
    expect(problems).toEqual([]);
    const outside = requested.filter((url) => !/^(http|ws):\/\/127\.0\.0\.1:/.test(url));
    expect(outside).toEqual([]);
  }, 60_000);
});
