import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { type Bucket, type BucketRule, take } from './token-bucket';

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * One token bucket per sender (one instance per `sub`), so the limit holds
 * across every isolate and colo that serves that sender. The bucket lives in
 * memory: an evicted object only forgets debt, it never refuses wrongly.
 */
export class RateLimiter extends DurableObject<Env> {
  #bucket: Bucket | undefined;

  take(rule: BucketRule): RateDecision {
    const result = take(this.#bucket, rule, Date.now());
    this.#bucket = result.bucket;
    return result.ok ? { ok: true } : { ok: false, retryAfterSeconds: result.retryAfterSeconds };
  }
}

interface RateLimiterApi {
  take(rule: BucketRule): Promise<RateDecision>;
}

/** Wires per second and burst per sender; RATE_PER_SECOND="0" turns the limit off. */
export function rateRule(env: Pick<Env, 'RATE_PER_SECOND' | 'RATE_BURST'>): BucketRule | null {
  const perSecond = Number(env.RATE_PER_SECOND ?? '100');
  if (!Number.isFinite(perSecond) || perSecond <= 0) return null;
  const burst = Number(env.RATE_BURST ?? perSecond * 2);
  return { perSecond, burst: Number.isFinite(burst) && burst >= 1 ? burst : perSecond * 2 };
}

/**
 * Object ids by sender: `idFromName` hashes the name on every call, and an id
 * (unlike a stub) is a plain value that may outlive the request that made it.
 */
const MAX_IDS = 1024;
const ids = new WeakMap<Env['RATE_LIMITER'], Map<string, DurableObjectId>>();

function idOf(ns: Env['RATE_LIMITER'], sender: string): DurableObjectId {
  let byName = ids.get(ns);
  if (!byName) {
    byName = new Map();
    ids.set(ns, byName);
  }
  let id = byName.get(sender);
  if (!id) {
    if (byName.size >= MAX_IDS) byName.clear();
    id = ns.idFromName(sender);
    byName.set(sender, id);
  }
  return id;
}

export async function takeForSender(env: Env, sender: string): Promise<RateDecision> {
  const rule = rateRule(env);
  if (!rule || !env.RATE_LIMITER) return { ok: true };
  const ns = env.RATE_LIMITER;
  const stub = ns.get(idOf(ns, sender)) as unknown as RateLimiterApi;
  return stub.take(rule);
}
