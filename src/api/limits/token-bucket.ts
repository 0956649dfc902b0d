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
