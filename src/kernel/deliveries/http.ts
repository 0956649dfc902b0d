import { type Delivery, DONE, type Outcome } from '../outbox';
import { retryAfterMs, retryDelay } from '../webhooks/settings';
import { signatures } from '../webhooks/sign';
import type { Webhooks } from '../webhooks/store';

/**
 * Webhooks over HTTP (`via: 'http'`, target = endpoint id, `key` = the
 * message's `webhook-id`), per Standard Webhooks: a POST of the message body
 * signed with every live secret of the endpoint, the same `webhook-id` on
 * every attempt and a fresh `webhook-timestamp`. Only a 2xx is success; a
 * 410 disables the endpoint; a 429 is retried after its `Retry-After` (never sooner than the schedule);
 * anything else (another status, a timeout, a network error) after the
 * deployment's schedule (`webhooks/settings.ts`), and after the last try the
 * message is dead-lettered. Every attempt goes into the endpoint's log.
 * Each attempt is signed with the secrets live when it is sent (a retry
 * after a rotation carries the new secret's signature); a message whose
 * endpoint was removed is never sent again, nor to a later endpoint of that id.
 *
 * Rounds are detached: the append that recorded a message has answered
 * before its first attempt starts, and a receiver that hangs holds up only
 * its own message (until the per-attempt timeout). Each attempt moves its
 * row's due time past the timeout plus a margin first, so an object evicted mid-attempt
 * tries again after that.
 */
const DAY_MS = 86_400_000;

export function httpDelivery(hooks: Webhooks): Delivery {
  const { timeoutMs } = hooks.settings;
  return {
    via: 'http',
    batch: 1,
    ordered: false,
    promptMs: 0,
    fallbackMs: 1_000,
    attemptMs: timeoutMs + 5_000,
    async deliver(endpointId, parcels, now): Promise<Outcome> {
      const parcel = parcels[0];
      const message = parcel?.key ? hooks.message(parcel.key) : null;
      if (!parcel || !message) return DONE;
      const attempt = parcel.attempts + 1;
      const target = hooks.target(endpointId, now);
      if ('refused' in target) {
        hooks.settle(message.id, 'dead', target.refused, now);
        return DONE;
      }
      const timestamp = Math.floor(now / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'wirestream-webhooks/1',
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signatures(target.secrets, message.id, timestamp, message.body),
      };
      // Removed while it was signed (`remove` dead-lettered the message, or a later
      // registration of the id took over): not sent.
      if (hooks.message(message.id) === null || !hooks.registered(endpointId)) return DONE;
      const started = Date.now();
      let status: number | null = null;
      let error: string | null = null;
      let retryAfter: number | null = null;
      try {
        const response = await fetch(target.url, {
          method: 'POST',
          headers,
          body: message.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        retryAfter = retryAfterMs(response.headers.get('retry-after'), Date.now());
        await response.body?.cancel();
      } catch (thrown) {
        const name = thrown instanceof Error ? thrown.name : '';
        error =
          name === 'TimeoutError' || name === 'AbortError'
            ? `no answer within ${timeoutMs} ms`
            : connectError(target.url, thrown);
      }
      const at = Date.now();
      if (status !== null && (status < 200 || status > 299)) error = `HTTP ${status}`;
      // The endpoint was removed and its id registered again during the attempt: the
      // message went with the old registration, and nothing of it is the new one's.
      if (hooks.message(message.id) === null) return DONE;
      hooks.logAttempt(endpointId, {
        message_id: message.id,
        attempt,
        at: new Date(started).toISOString(),
        status,
        latency_ms: at - started,
        error,
      });
      if (error === null) {
        hooks.settle(message.id, 'delivered', null, at);
        return DONE;
      }
      // Removed during the attempt: `remove` dead-lettered the message already.
      if (!hooks.registered(endpointId)) return DONE;
      if (status === 410) {
        hooks.gone(endpointId, at);
        hooks.settle(message.id, 'dead', 'the receiver answered 410 Gone', at);
        return DONE;
      }
      const scheduled = retryDelay(hooks.settings, attempt);
      if (scheduled === null) {
        hooks.settle(message.id, 'dead', `gave up after ${attempt} attempts: ${error}`, at);
        return DONE;
      }
      hooks.settle(message.id, 'pending', error, at);
      // A 429's Retry-After can put the next attempt later than the schedule (up to a
      // day), never sooner: a receiver that is only rate-limited gets the schedule's
      // whole span before its message is dead-lettered, as a failing one does.
      const delay =
        status === 429 && retryAfter !== null
          ? Math.max(scheduled, Math.min(retryAfter, DAY_MS))
          : scheduled;
      return { done: false, retryAt: at + delay };
    },
  };
}

/**
 * Why a request got no answer. workerd reports a host it cannot resolve or
 * reach as an opaque "internal error; reference = …" (the cause goes only to
 * its log), so the receiver's host is named and the likely causes said.
 */
function connectError(url: string, thrown: unknown): string {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  if (!message.startsWith('internal error')) return message;
  return `could not connect to ${new URL(url).host} (DNS lookup or connection failed; ${message})`;
}
