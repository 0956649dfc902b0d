// Types for TypeScript callers (test/support/dev-server.ts) of wrangler-local.mjs.

export const ROOT: string;
export const WRANGLER: string;
export const OFFLINE: NodeJS.ProcessEnv;
export function freePort(): Promise<number>;
export function migrateD1(persist: string, cwd: string): { ok: boolean; output: string };
export function migratedD1Copy(persist: string, cwd: string): { ok: boolean; output: string };
export function wranglerDevArgs(options: {
  port: number;
  persist: string;
  vars: Record<string, string>;
}): Promise<string[]>;
