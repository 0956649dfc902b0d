import type { Draft, Failure } from '../../protocol';
import type { AppendResult, Effect } from '../kind';
import { type Delivery, DONE, type Parcel } from '../outbox';

/**
 * Effects on other streams (`via: 'stream'`, target = stream id, body = the
 * Draft, `tag` for the kind's `refused` hook). Delivered inline right after
 * the append that records them (`Outbox.deliver`), else by the alarm 10 s
 * later, then after 1, 2, 4 … 60 s. The Draft is fixed when recorded and its
 * wire_id deterministic, so a re-delivery is a replay. A refusal is an
 * answer, not a failure: the row is done and the kind hears it.
 */
export interface StreamDeliveryDeps {
  appendTo(streamId: string, draft: Draft): Promise<AppendResult>;
  refused(effect: Effect, failure: Failure): void;
}

/** Delay before the alarm retries an undelivered effect (inline delivery goes first). */
export const FIRST_RETRY_MS = 10_000;

export function streamDelivery(deps: StreamDeliveryDeps): Delivery {
  return {
    via: 'stream',
    batch: 1,
    ordered: false,
    promptMs: null,
    fallbackMs: FIRST_RETRY_MS,
    claimMs: null,
    async deliver(target, parcels) {
      const parcel = parcels[0];
      if (!parcel) return DONE;
      const effect = effectOf(parcel);
      try {
        const result = await deps.appendTo(target, effect.draft);
        if (!result.ok) deps.refused(effect, result);
        return DONE;
      } catch (error) {
        console.warn('effect delivery failed; the alarm retries', target, effect.draft.type, error);
        return { done: false, retryAt: Date.now() + Math.min(60_000, 1000 * 2 ** parcel.attempts) };
      }
    },
  };
}

export function effectOf(parcel: Parcel): Effect {
  return {
    target: parcel.target,
    draft: JSON.parse(parcel.body ?? '{}') as Draft,
    ...(parcel.tag === null ? {} : { tag: parcel.tag }),
  };
}
