import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { type Bucket, type BucketRule, take } from './token-bucket';

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export type Lease = { granted: number } | { granted: 0; retryAfterSeconds: number };

/**
 * One token bucket per sender (one instance per `sub`), so the limit holds
 * across every isolate and colo that serves that sender. The bucket lives in
 * memory: an evicted object only forgets debt, it never refuses wrongly.
 *
 * A Worker isolate leases tokens rather than asking once per append (see
 * `takeForSender`): the object hands out at most what the bucket holds, so
 * every admitted append still had a token from this one bucket.
 */
export class RateLimiter extends DurableObject<Env> {
  #bucket: Bucket | undefined;

  /** Up to `upTo` tokens at once (at least one, or a refusal with its wait). */
  lease(rule: BucketRule, upTo: number): Lease {
    const result = take(this.#bucket, rule, Date.now(), upTo);
    this.#bucket = result.bucket;
    return result.ok
      ? { granted: result.granted }
      : { granted: 0, retryAfterSeconds: result.retryAfterSeconds };
  }
}

interface RateLimiterApi {
  lease(rule: BucketRule, upTo: number): Promise<Lease>;
}

/** Wires per second and burst per sender; RATE_PER_SECOND="0" turns the limit off. */
export function rateRule(env: Pick<Env, 'RATE_PER_SECOND' | 'RATE_BURST'>): BucketRule | null {
  const perSecond = Number(env.RATE_PER_SECOND ?? '100');
  if (!Number.isFinite(perSecond) || perSecond <= 0) return null;
  const burst = Number(env.RATE_BURST ?? perSecond * 2);
  return { perSecond, burst: Number.isFinite(burst) && burst >= 1 ? burst : perSecond * 2 };
}

/**
 * Tokens this isolate holds for one sender. A lease lives `LEASE_MS`; tokens
 * left at its end are dropped, never returned, so the limit can only err
 * towards refusing (by at most one lease's size per isolate), never towards
 * admitting more than the bucket allows.
 */
interface Allowance {
  tokens: number;
  expiresAt: number;
  /** Tokens asked for next time: doubles while leases run out early, halves when they lapse. */
  size: number;
}

const LEASE_MS = 1000;
/** At most this share of the burst sits in one isolate's lease. */
const LEASE_SHARE_OF_BURST = 1 / 8;
const MAX_LEASE = 64;
const MAX_SENDERS = 1024;

/**
 * Object ids and allowances by sender: `idFromName` hashes the name on every
 * call, and an id (unlike a stub) is a plain value that may outlive the
 * request that made it.
 */
const ids = new WeakMap<Env['RATE_LIMITER'], Map<string, DurableObjectId>>();
const allowances = new WeakMap<Env['RATE_LIMITER'], Map<string, Allowance>>();

function perSender<T>(
  maps: WeakMap<Env['RATE_LIMITER'], Map<string, T>>,
  ns: Env['RATE_LIMITER'],
  sender: string,
  make: () => T,
): T {
  let bySender = maps.get(ns);
  if (!bySender) {
    bySender = new Map();
    maps.set(ns, bySender);
  }
  let value = bySender.get(sender);
  if (value === undefined) {
    if (bySender.size >= MAX_SENDERS) bySender.clear();
    value = make();
    bySender.set(sender, value);
  }
  return value;
}

function leaseSize(allowance: Allowance, rule: BucketRule, now: number): number {
  const cap = Math.max(1, Math.min(MAX_LEASE, Math.floor(rule.burst * LEASE_SHARE_OF_BURST)));
  if (allowance.expiresAt > now) {
    allowance.size = Math.min(cap, allowance.size * 2); // ran out before it lapsed: busy sender
  } else if (allowance.tokens > 0) {
    allowance.size = Math.max(1, Math.floor(allowance.size / 2)); // lapsed unused
  }
  return Math.min(cap, allowance.size);
}

/**
 * One token for `sender`: from this isolate's lease when it holds one, else
 * from the sender's RateLimiter, which may lease a few more for the next
 * appends. A busy sender pays one RPC per lease instead of one per append.
 */
export async function takeForSender(env: Env, sender: string): Promise<RateDecision> {
  const rule = rateRule(env);
  if (!rule || !env.RATE_LIMITER) return { ok: true };
  const ns = env.RATE_LIMITER;
  const allowance = perSender(allowances, ns, sender, () => ({ tokens: 0, expiresAt: 0, size: 1 }));
  const now = Date.now();
  if (allowance.tokens > 0 && allowance.expiresAt > now) {
    allowance.tokens--;
    return { ok: true };
  }
  const upTo = leaseSize(allowance, rule, now);
  const id = perSender(ids, ns, sender, () => ns.idFromName(sender));
  const stub = ns.get(id) as unknown as RateLimiterApi;
  const lease = await stub.lease(rule, upTo);
  if (lease.granted === 0) {
    return {
      ok: false,
      retryAfterSeconds: 'retryAfterSeconds' in lease ? lease.retryAfterSeconds : 1,
    };
  }
  // This append spends one; the rest serve the next ones (concurrent
  // requests may add theirs to the same allowance).
  const held = allowance.expiresAt > Date.now() ? allowance.tokens : 0;
  allowance.tokens = held + lease.granted - 1;
  allowance.expiresAt = Date.now() + LEASE_MS;
  return { ok: true };
}
