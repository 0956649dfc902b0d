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
  | { ok: true; bucket: Bucket; granted: number }
  | { ok: false; bucket: Bucket; retryAfterSeconds: number };

/**
 * Takes one token, and up to `upTo` whole tokens when the bucket holds them
 * (`granted` says how many). Refuses only when not even one is there.
 */
export function take(bucket: Bucket | undefined, rule: BucketRule, nowMs: number, upTo = 1): Take {
  const previous = bucket ?? { tokens: rule.burst, at: nowMs };
  const elapsed = Math.max(0, nowMs - previous.at) / 1000;
  const tokens = Math.min(rule.burst, previous.tokens + elapsed * rule.perSecond);
  if (tokens >= 1) {
    const granted = Math.max(1, Math.min(Math.floor(upTo), Math.floor(tokens)));
    return { ok: true, bucket: { tokens: tokens - granted, at: nowMs }, granted };
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / rule.perSecond));
  return { ok: false, bucket: { tokens, at: nowMs }, retryAfterSeconds };
}
