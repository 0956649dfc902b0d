// Types for TypeScript callers (tests) of the plain-ESM dev token helpers.

export interface DevSecrets {
  tokenSecret: string;
  adminToken: string;
}

/** A fresh C2SP signer key for log mode's checkpoints (`LOG_SIGNER_KEY`). */
export function logSignerKey(name?: string): string;
export function ensureDevSecrets(file?: string): DevSecrets;
/** A 24-hour token signed like `POST /v1/tokens` signs them (an agent's, by default). */
export function devToken(tokenSecret: string, sub?: string, scopes?: string[]): Promise<string>;
/** The text `npm start` prints once the Worker answers (the dashboard's link first). */
export function devBanner(base: string, secrets: DevSecrets): Promise<string>;
export function printTokensWhenReady(base: string, secrets: DevSecrets): Promise<void>;
