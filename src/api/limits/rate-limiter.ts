import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { type Bucket, type BucketRule, takeUpTo } from './token-bucket';

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };
type Lease = { ok: true; granted: number } | { ok: false; retryAfterSeconds: number };

/**
 * One token bucket per sender (one instance per `sub`), so the limit holds
 * across every isolate and colo that serves that sender. The bucket lives in
 * memory: an evicted object only forgets debt, it never refuses wrongly.
 */
export class RateLimiter extends DurableObject<Env> {
  #bucket: Bucket | undefined;

  /** Grants between 1 and `want` tokens, or refuses with the wait for one. */
  take(rule: BucketRule, want = 1): Lease {
    const result = takeUpTo(this.#bucket, rule, Date.now(), want);
    this.#bucket = result.bucket;
    return result.ok
      ? { ok: true, granted: result.granted }
      : { ok: false, retryAfterSeconds: result.retryAfterSeconds };
  }
}

interface RateLimiterApi {
  take(rule: BucketRule, want: number): Promise<Lease>;
}

/** Wires per second and burst per sender; RATE_PER_SECOND="0" turns the limit off. */
export function rateRule(env: Pick<Env, 'RATE_PER_SECOND' | 'RATE_BURST'>): BucketRule | null {
  const perSecond = Number(env.RATE_PER_SECOND ?? '100');
  if (!Number.isFinite(perSecond) || perSecond <= 0) return null;
  const burst = Number(env.RATE_BURST ?? perSecond * 2);
  return { perSecond, burst: Number.isFinite(burst) && burst >= 1 ? burst : perSecond * 2 };
}

/**
 * An isolate leases what the bucket refills in LEASE_MS and spends it without
 * an RPC per append. Tokens are debited in the sender's object before they are
 * spent here, so the limit across isolates is never looser; a lease unspent by
 * its deadline is dropped (stricter, never a burst beyond the rule).
 */
const LEASE_MS = 100;
const leases = new Map<string, { tokens: number; until: number; rule: BucketRule }>();

function leaseSize(rule: BucketRule): number {
  const refill = Math.floor((rule.perSecond * LEASE_MS) / 1000);
  return Math.max(1, Math.min(refill, Math.floor(rule.burst / 2)));
}

function forgetExpired(now: number): void {
  for (const [sender, lease] of leases) if (lease.until <= now) leases.delete(sender);
}

export async function takeForSender(env: Env, sender: string): Promise<RateDecision> {
  const rule = rateRule(env);
  if (!rule || !env.RATE_LIMITER) return { ok: true };
  const now = Date.now();
  const held = leases.get(sender);
  const sameRule = held?.rule.perSecond === rule.perSecond && held.rule.burst === rule.burst;
  if (held && sameRule && held.until > now && held.tokens >= 1) {
    held.tokens -= 1;
    return { ok: true };
  }
  const ns = env.RATE_LIMITER;
  const stub = ns.get(ns.idFromName(sender)) as unknown as RateLimiterApi;
  const lease = await stub.take(rule, leaseSize(rule));
  if (!lease.ok) return lease;
  if (lease.granted > 1) {
    if (leases.size >= 1024) forgetExpired(Date.now());
    leases.set(sender, { tokens: lease.granted - 1, until: Date.now() + LEASE_MS, rule });
  }
  return { ok: true };
}
