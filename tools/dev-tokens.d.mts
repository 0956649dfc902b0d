// Types of dev-tokens.mjs for the tests that import it.
export function logSignerKey(name?: string): string;
export function ensureDevSecrets(file?: string): {
  tokenSecret: string | undefined;
  adminToken: string | undefined;
};
export function devAgentToken(tokenSecret: string, sub?: string): Promise<string>;
export function printTokensWhenReady(
  base: string,
  secrets: { tokenSecret: string | undefined; adminToken: string | undefined },
): Promise<void>;
