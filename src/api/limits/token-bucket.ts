/**
 * A token bucket: `burst` tokens, refilled at `perSecond`. Pure: the caller
 * passes the clock in and keeps the returned state.
 */
export interface Bucket {
  tokens: number;
  at: number;
}

export interface BucketRule {
  perSecond: number;
  burst: number;
}

export type Take =
  | { ok: true; bucket: Bucket }
  | { ok: false; bucket: Bucket; retryAfterSeconds: number };

export function take(bucket: Bucket | undefined, rule: BucketRule, nowMs: number, cost = 1): Take {
  const previous = bucket ?? { tokens: rule.burst, at: nowMs };
  const elapsed = Math.max(0, nowMs - previous.at) / 1000;
  const tokens = Math.min(rule.burst, previous.tokens + elapsed * rule.perSecond);
  if (tokens >= cost) return { ok: true, bucket: { tokens: tokens - cost, at: nowMs } };
  const retryAfterSeconds = Math.max(1, Math.ceil((cost - tokens) / rule.perSecond));
  return { ok: false, bucket: { tokens, at: nowMs }, retryAfterSeconds };
}

/**
 * Takes up to `want` whole tokens at once (at least one, or none at all): how
 * an isolate leases a share of a sender's bucket and spends it locally.
 */
export function takeUpTo(
  bucket: Bucket | undefined,
  rule: BucketRule,
  nowMs: number,
  want: number,
): Take & { granted: number } {
  const previous = bucket ?? { tokens: rule.burst, at: nowMs };
  const elapsed = Math.max(0, nowMs - previous.at) / 1000;
  const tokens = Math.min(rule.burst, previous.tokens + elapsed * rule.perSecond);
  const granted = Math.min(Math.max(1, Math.floor(want)), Math.floor(tokens));
  if (granted >= 1) return { ok: true, granted, bucket: { tokens: tokens - granted, at: nowMs } };
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / rule.perSecond));
  return { ok: false, granted: 0, bucket: { tokens, at: nowMs }, retryAfterSeconds };
}
