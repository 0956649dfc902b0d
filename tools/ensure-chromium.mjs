#!/usr/bin/env node
// Finds the Chromium the browser tests drive, and installs Debian's `chromium`
// when there is none and this user may (root, or passwordless sudo). Runs as
// the browser project's vitest globalSetup (test/global-setup-chromium.ts), so
// `npm install && npm test` works on a fresh Debian machine; also on its own:
//   node tools/ensure-chromium.mjs      prints the browser's path, or says what to run
// Never downloads a browser build of its own (playwright install, puppeteer):
// only the npm registry and Debian's packages are reachable where this runs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where a Chromium is looked for, after `CHROMIUM_PATH`. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

/**
 * The flags every test launch adds: no sandbox (root in a container has no
 * user namespaces), no GPU, and nothing that reaches out to Google's servers.
 * playwright-core adds `--headless` itself (`headless: true`), and with it
 * `--disable-background-networking`, `--disable-component-update`, `--no-first-run`
 * and more (checked with Debian's Chromium 156): these say so again on purpose,
 * for a launch without playwright.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The Chromium to drive: `CHROMIUM_PATH` if set (it must exist), else the
 * first of {@link CHROMIUM_CANDIDATES} that is executable, else null.
 * @returns {string | null}
 */
export function findChromium(env = process.env) {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  return CHROMIUM_CANDIDATES.find(executable) ?? null;
}

/** What to tell a user who has no browser and whom this script cannot help. */
export function missingMessage(reason) {
  return [
    `No Chromium for the browser tests (${reason}).`,
    `Looked for CHROMIUM_PATH, then ${CHROMIUM_CANDIDATES.join(', ')}.`,
    "Install Debian's: sudo apt-get update && sudo apt-get install -y chromium",
    'or point at any Chromium/Chrome binary: CHROMIUM_PATH=/path/to/chromium npm test',
    `or, without root, the Chromium inside an npm package (needs libnss3): npm install --no-save ${NPM_CHROMIUM}`,
  ].join('\n');
}

/**
 * A Chromium shipped inside an npm package, used when it is installed (it is
 * not a dependency: 64 MB, built for AWS Lambda, and 153+ wants Node 22).
 * 143.0.4 is the newest that runs on Node 20; it starts on Debian when
 * libnss3 is there. Its `executablePath()` unpacks the binary to /tmp/chromium.
 */
export const NPM_CHROMIUM = '@sparticuz/chromium@143.0.4';
const NPM_CHROMIUM_PACKAGE = '@sparticuz/chromium';

/** The npm package's Chromium, unpacked, or null when the package is not installed. */
async function npmChromium() {
  let packaged;
  try {
    packaged = (await import(NPM_CHROMIUM_PACKAGE)).default;
  } catch {
    return null;
  }
  return packaged.executablePath();
}

/**
 * Returns the Chromium's path: `CHROMIUM_PATH`, else an installed one, else
 * the npm package's if that is installed, else Debian's `chromium` installed
 * with apt-get when this user is root or has passwordless sudo. Throws an
 * Error whose message says exactly what to run otherwise.
 * @param {{ log?: (line: string) => void, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
export async function ensureChromium({
  log = (line) => console.log(line),
  env = process.env,
} = {}) {
  if (env.CHROMIUM_PATH) {
    if (!executable(env.CHROMIUM_PATH))
      throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file.`);
    return env.CHROMIUM_PATH;
  }
  const found = findChromium(env);
  if (found) return found;
  const packaged = await npmChromium();
  if (packaged) {
    log(
      `ensure-chromium: using the Chromium of the npm package ${NPM_CHROMIUM_PACKAGE} at ${packaged}`,
    );
    return packaged;
  }

  const prefix = installPrefix();
  if (!prefix) throw new Error(missingMessage('not root, and sudo needs a password or is absent'));
  if (!onPath('apt-get')) throw new Error(missingMessage('no apt-get on this machine'));

  log(
    `ensure-chromium: no Chromium found; installing Debian's chromium with ${[...prefix, 'apt-get'].join(' ')} (once, about a minute)…`,
  );
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const [command = 'apt-get', ...before] = [...prefix, 'apt-get'];
  const apt = (...args) =>
    spawnSync(command, [...before, ...args], {
      env: aptEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const steps = [
    ['update', '-qq'],
    ['install', '-y', '-qq', '-o', 'Dpkg::Use-Pty=0', 'chromium'],
  ];
  for (const step of steps) {
    const result = apt(...step);
    if (result.status !== 0) {
      const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15);
      throw new Error(
        `${missingMessage(`apt-get ${step[0]} failed with ${result.status ?? result.signal}`)}\n${tail.join('\n')}`,
      );
    }
  }
  const installed = findChromium(env);
  if (!installed)
    throw new Error(missingMessage('apt-get installed chromium but no binary appeared'));
  log(`ensure-chromium: installed ${chromiumVersion(installed)} at ${installed}`);
  return installed;
}

/** `[]` as root, `['sudo', '-n']` with passwordless sudo, else null. */
function installPrefix() {
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0)
    return ['sudo', '-n'];
  return null;
}

function onPath(command) {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir && executable(path.join(dir, command)));
}

/** e.g. "Chromium 142.0.7444.175 built on Debian …" (or the path if it will not say). */
export function chromiumVersion(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return result.stdout?.trim() || file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const file = await ensureChromium();
    console.log(file);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
