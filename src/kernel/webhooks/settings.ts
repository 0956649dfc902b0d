import type { Env } from '../../env';

/**
 * The deployment's webhook settings (wrangler vars):
 * - `WEBHOOK_RETRY_SCHEDULE`: seconds before each retry, comma-separated.
 *   Default `5,300,1800,7200,18000,36000,50400,72000,86400` — 5 s, 5 min,
 *   30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts over about three
 *   days, then the message is dead-lettered. Each delay is drawn within
 *   ±20 % of its value (jitter), so receivers coming back are not hit by
 *   every sender at once.
 * - `WEBHOOK_TIMEOUT_MS`: one attempt's limit (default 15000).
 * - `WEBHOOK_ALLOW_LOCAL_HTTP`: `true` lets endpoints use plain
 *   `http://127.0.0.1` / `http://localhost` (development and tests only).
 */
export interface WebhookSettings {
  retryDelaysMs: number[];
  timeoutMs: number;
  allowLocalHttp: boolean;
}

const DEFAULT_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

export function webhookSettings(
  env: Pick<Env, 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_ALLOW_LOCAL_HTTP'>,
): WebhookSettings {
  const listed = (env.WEBHOOK_RETRY_SCHEDULE ?? '')
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(Number);
  const valid = listed.length > 0 && listed.every((n) => Number.isFinite(n) && n >= 0);
  const timeout = Number(env.WEBHOOK_TIMEOUT_MS);
  return {
    retryDelaysMs: (valid ? listed : DEFAULT_SCHEDULE).map((s) => Math.round(s * 1000)),
    timeoutMs: Number.isInteger(timeout) && timeout > 0 ? timeout : 15_000,
    allowLocalHttp: env.WEBHOOK_ALLOW_LOCAL_HTTP === 'true',
  };
}

/**
 * Milliseconds before the retry that follows failed attempt number
 * `attempt` (1-based), with jitter; null when that was the last attempt.
 */
export function retryDelay(
  settings: WebhookSettings,
  attempt: number,
  random = Math.random,
): number | null {
  const base = settings.retryDelaysMs[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** `Retry-After` (seconds or an HTTP date) as milliseconds from `now`, or null. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
