// @ts-check
// Fault modes a test switches on through POST /__standin/faults. A spec is
// either network-wide or scoped to one topic (`topicId`), so test files that
// share one stand-in do not disturb each other. Counted faults (busy,
// loseReceipts, payerBroke) are used up one submit at a time, the topic's own first.

/**
 * @typedef {{ unavailable?: boolean, busy?: number, payerBroke?: number, receiptDelayMs?: number,
 *   loseReceipts?: number, answerDelayMs?: number, mirrorLagMs?: number,
 *   mirrorUnavailable?: boolean, laterChunksUnavailable?: boolean, expireOlderIds?: boolean,
 *   expiredBeforeNs?: string }} FaultSpec
 */

const GLOBAL = '*';

/** @param {unknown} body @returns {{ scope: string, spec: FaultSpec } | string} spec or an error */
export function parseFaultSpec(body) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'body must be a JSON object';
  /** @type {Record<string, unknown>} */
  const b = /** @type {Record<string, unknown>} */ (body);
  /** @type {FaultSpec} */
  const spec = {};
  for (const [k, v] of Object.entries(b)) {
    if (k === 'topicId') {
      if (typeof v !== 'string' || !/^\d+\.\d+\.\d+$/.test(v))
        return 'topicId must be "shard.realm.num"';
    } else if (
      k === 'unavailable' ||
      k === 'mirrorUnavailable' ||
      k === 'laterChunksUnavailable' ||
      k === 'expireOlderIds'
    ) {
      if (typeof v !== 'boolean') return `${k} must be a boolean`;
      spec[k] = v;
      // The outage outlived every transaction id made before now.
      if (k === 'expireOlderIds' && v)
        spec.expiredBeforeNs = String(BigInt(Date.now()) * 1_000_000n);
    } else if (
      k === 'busy' ||
      k === 'payerBroke' ||
      k === 'loseReceipts' ||
      k === 'receiptDelayMs' ||
      k === 'answerDelayMs' ||
      k === 'mirrorLagMs'
    ) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
        return `${k} must be an integer >= 0`;
      spec[k] = v;
    } else {
      return `unknown fault "${k}"`;
    }
  }
  return { scope: typeof b.topicId === 'string' ? b.topicId : GLOBAL, spec };
}

export class Faults {
  constructor() {
    /** @type {Map<string, FaultSpec>} */
    this.scopes = new Map();
  }

  /** Replace the faults of one scope; `{}` clears it. @param {string} scope @param {FaultSpec} spec */
  set(scope, spec) {
    if (Object.keys(spec).length === 0) this.scopes.delete(scope);
    else this.scopes.set(scope, { ...spec });
  }

  clear() {
    this.scopes.clear();
  }

  /** @param {string | null | undefined} topicId */
  #specs(topicId) {
    const specs = [];
    if (topicId) {
      const own = this.scopes.get(topicId);
      if (own) specs.push(own);
    }
    const global = this.scopes.get(GLOBAL);
    if (global) specs.push(global);
    return specs;
  }

  /** @param {string | null | undefined} topicId */
  unavailable(topicId) {
    return this.#specs(topicId).some((s) => s.unavailable === true);
  }

  /** A message's 2nd and later chunks meet an unavailable node. @param {string | null | undefined} topicId */
  laterChunksUnavailable(topicId) {
    return this.#specs(topicId).some((s) => s.laterChunksUnavailable === true);
  }

  /**
   * Transaction ids whose valid start is before this (ns) are expired: the
   * node's clock has passed their valid duration. @param {string | null | undefined} topicId
   */
  expiredBeforeNs(topicId) {
    return this.#specs(topicId).reduce(
      (max, s) =>
        s.expiredBeforeNs && BigInt(s.expiredBeforeNs) > max ? BigInt(s.expiredBeforeNs) : max,
      0n,
    );
  }

  /** The mirror REST API answers 503 for this topic. @param {string | null | undefined} topicId */
  mirrorUnavailable(topicId) {
    return this.#specs(topicId).some((s) => s.mirrorUnavailable === true);
  }

  /** @param {string | null | undefined} topicId @param {'receiptDelayMs' | 'answerDelayMs' | 'mirrorLagMs'} kind */
  delay(topicId, kind) {
    return Math.max(0, ...this.#specs(topicId).map((s) => s[kind] ?? 0));
  }

  /** Use up one counted fault, if any is left. @param {string | null | undefined} topicId @param {'busy' | 'payerBroke' | 'loseReceipts'} kind */
  take(topicId, kind) {
    for (const spec of this.#specs(topicId)) {
      const left = spec[kind] ?? 0;
      if (left > 0) {
        spec[kind] = left - 1;
        return true;
      }
    }
    return false;
  }

  snapshot() {
    return Object.fromEntries(this.scopes);
  }
}
