// Types for TypeScript callers (the browser tests and their global setup).
export const CHROMIUM_CANDIDATES: string[];
export const CHROMIUM_FLAGS: string[];
export function findChromium(env?: NodeJS.ProcessEnv): string | null;
export function missingMessage(reason: string): string;
export const NPM_CHROMIUM: string;
export function ensureChromium(options?: {
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<string>;
export function chromiumVersion(file: string): string;
