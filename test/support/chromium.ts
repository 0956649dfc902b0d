import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, errors, type Page, type Request } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_FLAGS, findChromium, missingMessage } from '../../tools/ensure-chromium.mjs';
import { forFile } from './per-file';

/** A headless Chromium with its own throwaway profile; `close()` removes both. */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * The one way browser tests start Chromium: the binary that the project's
 * global setup found or installed (CHROMIUM_PATH, /usr/bin/chromium, …; see
 * tools/ensure-chromium.mjs), headless, with the flags that keep it offline.
 */
export async function launchChromium(
  viewport = { width: 1280, height: 800 },
): Promise<TestBrowser> {
  const executablePath = inject('chromiumPath') || findChromium();
  if (!executablePath) throw new Error(missingMessage('the global setup did not run'));
  const profile = mkdtempSync(path.join(tmpdir(), 'wirestream-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The browser's first tab, with each console error and uncaught exception pushed onto `problems`. */
export async function watchedPage(browser: TestBrowser, problems: string[]): Promise<Page> {
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  // A navigation that times out says which of the page's requests were still
  // open then: a hung navigation (seen once in CI, never reproduced) names its
  // culprit instead of only "waiting until 'load'".
  const open = new Map<Request, number>();
  page.on('request', (r) => open.set(r, Date.now()));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    try {
      return await goto(url, options);
    } catch (error) {
      if (error instanceof errors.TimeoutError) {
        const now = Date.now();
        const list = [...open].map(([r, at]) => `${r.method()} ${r.url()} (${now - at} ms)`);
        error.message += `\nrequests still open: ${list.length ? list.join('; ') : 'none'}`;
      }
      throw error;
    }
  };
  return page;
}

/**
 * Chromium and its watched page for the tests of one file: launched before
 * them (after any `beforeAll` registered earlier), closed after them. Read
 * `page` inside the tests.
 */
export function chromiumForFile(problems: string[]): { readonly page: Page } {
  const current = forFile(
    'Chromium',
    () => launchChromium(),
    (browser) => browser.close(),
    (browser) => watchedPage(browser, problems),
    60_000,
  );
  return {
    get page() {
      return current().ready;
    },
  };
}

/**
 * Signs `page` in to the dashboard at `baseUrl` with `token` (a `#token=`
 * fragment), then opens the view at `route`, e.g. `#/gsd?project=p`.
 */
export async function openDashboardView(
  page: Page,
  baseUrl: string,
  token: string,
  route: string,
): Promise<void> {
  await page.goto(`${baseUrl}/#token=${token}`);
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
}
