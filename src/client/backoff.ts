/** How a client waits between attempts: exponential, capped, with equal jitter. */
export interface RetryPolicy {
  /** Attempts in total, including the first (default 6). */
  attempts: number;
  /** First delay in ms (default 100). */
  baseMs: number;
  /** Longest delay in ms (default 5000). */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 100, maxMs: 5000 };

/**
 * Delay before attempt `attempt + 1` (attempt counts from 0), with "equal
 * jitter": the capped exponential delay `min(maxMs, baseMs * 2^attempt)`,
 * half of it fixed and half drawn at random, so clients that failed together
 * spread out yet none retries at once. A server's `Retry-After` wins when it
 * is given. `random` (a number in [0, 1)) is injectable so tests can pin it.
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, 60_000);
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  const share = Math.min(1, Math.max(0, random()));
  return Math.round(cap / 2 + (share * cap) / 2);
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms; undefined if absent or unreadable. */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
