// The browser project's set-up: finds the Chromium the tests drive, or installs
// Debian's `chromium` when there is none and this user may (tools/ensure-chromium.mjs),
// so `npm install && npm test` passes on a fresh machine. Otherwise it fails
// here, once, with what to run — not in every test with a launch error.
import type { TestProject } from 'vitest/node';
import { ensureChromium } from '../tools/ensure-chromium.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

export default async function setup(project: TestProject) {
  project.provide('chromiumPath', await ensureChromium());
}
