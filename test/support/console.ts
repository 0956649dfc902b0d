import type { Page } from 'playwright-core';
import type { TaskLease } from '../../src/client';
import { launchChromium, type TestBrowser, watchedPage } from './chromium';
import { type DevServer, startDevServer, tokenFor } from './dev-server';

/** What a console browser test drives: the server, an operator's token, Chromium and its page. */
export interface ConsoleRig {
  server: DevServer;
  token: string;
  browser: TestBrowser;
  page: Page;
}

/**
 * `wrangler dev` (with `vars`), a read/append token for `human:operator`, and
 * Chromium's page, whose console errors, uncaught exceptions and failed
 * requests (by address: a console 404 names none) are pushed onto `problems`.
 */
export async function startConsole(
  problems: string[],
  vars: Record<string, string> = {},
): Promise<ConsoleRig> {
  const server = await startDevServer(vars);
  const token = (await tokenFor(server, 'human:operator')) ?? '';
  const browser = await launchChromium();
  const page = await watchedPage(browser, problems);
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
  });
  return { server, token, browser, page };
}

/** Stops the leases' heartbeats, then Chromium and the server (either may not have started). */
export async function stopConsole(rig: Partial<ConsoleRig>, leases: TaskLease[] = []) {
  for (const lease of leases) lease.stop();
  await rig.browser?.close();
  await rig.server?.stop();
}
