import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
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
