import { type Failure, fail, newPrefixedId, type StoredWire } from '../../protocol';
import { httpDelivery } from '../deliveries/http';
import type { Outbox } from '../outbox';
import type { Sql } from '../sql';
import { type Endpoint, EndpointInput, invalid, subscribes, urlProblem } from './endpoint';
import {
  type DeliveryAttempt,
  type EndpointRow,
  type MessageStatus,
  migrateWebhooks,
  type SecretRow,
  type UnroutedWebhook,
  type WebhookMessage,
} from './schema';
import type { WebhookSettings } from './settings';
import { newSecret } from './sign';

/** Attempts kept per endpoint in the log (oldest go first). */
const LOG_LIMIT = 1000;
/** Delivered messages kept per endpoint for replay (oldest go first). */
export const DELIVERED_LIMIT = 1000;
/** Default grace of a rotated-out secret: it signs beside the new one this long. */
const ROTATION_GRACE_S = 24 * 3600;
/** Why a removed endpoint's messages were not delivered. */
const REMOVED = 'the endpoint was removed';

/**
 * A stream's webhooks, in its Durable Object's SQLite: the endpoints
 * registered on it (URL, subscribed Wire types, secrets), every message sent
 * (its `webhook-id`, body and fate: pending, delivered, dead) and a log of
 * each attempt. Messages leave through the outbox (`via: 'http'`), so one
 * is recorded in the same stretch as the Wire that causes it, and is sent
 * only after the append has answered. They belong to the registration they
 * were sent under: none reaches, or is listed under, a later one of the id.
 */
export class Webhooks {
  /** Enabled endpoints subscribed to Wire types: asked on every append, so kept in memory. */
  #subscribed: { id: string; types: string[] }[] = [];

  /**
   * `transaction` runs a change of several rows all or nothing (the Durable
   * Object's `storage.transactionSync`): a synchronous stretch is committed
   * as one unit, but a throw in it keeps the writes made before it.
   * https://developers.cloudflare.com/durable-objects/api/sqlite-storage-api/#transactionsync
   */
  constructor(
    private readonly sql: Sql,
    private readonly outbox: Outbox,
    readonly settings: WebhookSettings,
    private readonly transaction: <T>(change: () => T) => T = (change) => change(),
  ) {
    migrateWebhooks(sql);
    this.#load();
    outbox.use(httpDelivery(this));
  }

  #load(): void {
    this.#subscribed = this.sql<EndpointRow>`SELECT * FROM webhook_endpoints
      WHERE disabled_at IS NULL`
      .map((r) => ({ id: r.id, types: JSON.parse(r.types) as string[] }))
      .filter((e) => e.types.length > 0);
  }

  /** Registers an endpoint; answers it with its secret (shown this once). */
  register(
    input: unknown,
    now: number,
  ): { ok: true; endpoint: Endpoint; secret: string } | Failure {
    const parsed = EndpointInput.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'body';
      return invalid(field, issue?.message ?? 'invalid');
    }
    const { url, types, description } = parsed.data;
    const problem = urlProblem(url, this.settings.allowLocalHttp);
    if (problem) return problem;
    const id = parsed.data.id ?? newPrefixedId('ep', now);
    if (this.#row(id))
      return fail('invalid-transition', `endpoint ${id} exists: rotate its secret or remove it`);
    const secret = parsed.data.secret ?? newSecret();
    const at = new Date(now).toISOString();
    this.transaction(() => {
      // What is still kept under this id was sent for an earlier registration (since
      // removed) or while none was registered: the new endpoint never subscribed to it.
      this.sql`DELETE FROM webhook_messages WHERE endpoint_id = ${id}`;
      this.sql`DELETE FROM webhook_attempts WHERE endpoint_id = ${id}`;
      this.sql`DELETE FROM webhook_unrouted WHERE endpoint_id = ${id}`;
      this.outbox.drop('http', id);
      this.sql`INSERT INTO webhook_endpoints (id, url, types, description, created_at)
        VALUES (${id}, ${url}, ${JSON.stringify(types)}, ${description ?? null}, ${at})`;
      this
        .sql`INSERT INTO webhook_secrets (endpoint_id, secret, expires_at) VALUES (${id}, ${secret}, NULL)`;
    });
    this.#load();
    return { ok: true, endpoint: this.#endpoint(id, now) as Endpoint, secret };
  }

  /**
   * Removes an endpoint and its secrets. What it still owed is dead-lettered
   * at once and leaves the outbox (an attempt under way finishes, and is
   * logged); its log and messages stay readable until the id is registered again.
   */
  remove(id: string, now: number): { ok: true } | Failure {
    if (!this.#row(id)) return notFound(id);
    this.transaction(() => {
      this.sql`DELETE FROM webhook_endpoints WHERE id = ${id}`;
      this.sql`DELETE FROM webhook_secrets WHERE endpoint_id = ${id}`;
      this.sql`UPDATE webhook_messages SET status = 'dead', last_error = ${REMOVED},
        updated_at = ${new Date(now).toISOString()} WHERE endpoint_id = ${id} AND status = 'pending'`;
      this.outbox.drop('http', id);
    });
    this.#load();
    return { ok: true };
  }

  /**
   * A new current secret; the old one keeps signing beside it for
   * `graceSeconds` (default 24 h), so receivers can switch in that time.
   */
  rotate(
    id: string,
    now: number,
    graceSeconds = ROTATION_GRACE_S,
    secret: string = newSecret(),
  ): { ok: true; secret: string; previous_expires_at: string } | Failure {
    if (!this.#row(id)) return notFound(id);
    const until = now + Math.max(0, graceSeconds) * 1000;
    this.sql`DELETE FROM webhook_secrets WHERE endpoint_id = ${id} AND expires_at <= ${now}`;
    this.sql`UPDATE webhook_secrets SET expires_at = ${until}
      WHERE endpoint_id = ${id} AND (expires_at IS NULL OR expires_at > ${until})`;
    this
      .sql`INSERT INTO webhook_secrets (endpoint_id, secret, expires_at) VALUES (${id}, ${secret}, NULL)`;
    return { ok: true, secret, previous_expires_at: new Date(until).toISOString() };
  }

  /** Turns a disabled endpoint (a 410, or by hand) back on; `disable` turns it off. */
  enable(
    id: string,
    enabled: boolean,
    now: number,
    reason = 'disabled by request',
  ): Failure | null {
    if (!this.#row(id)) return notFound(id);
    if (enabled)
      this.sql`UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL
      WHERE id = ${id}`;
    else
      this.sql`UPDATE webhook_endpoints SET disabled_at = ${new Date(now).toISOString()},
      disabled_reason = ${reason} WHERE id = ${id} AND disabled_at IS NULL`;
    this.#load();
    return null;
  }

  endpoints(now: number): Endpoint[] {
    return this.sql<{ id: string }>`SELECT id FROM webhook_endpoints ORDER BY created_at, id`
      .map((r) => this.#endpoint(r.id, now))
      .filter((e): e is Endpoint => e !== null);
  }

  /** The endpoint's delivery log, newest first. */
  attempts(id: string, limit = 100): DeliveryAttempt[] {
    return this
      .sql<DeliveryAttempt>`SELECT message_id, attempt, at, status, latency_ms, error FROM webhook_attempts
      WHERE endpoint_id = ${id} ORDER BY id DESC LIMIT ${limit}`.map((r) => ({ ...r }));
  }

  /** The ids messages were sent to while no endpoint had them, most recent first. */
  unrouted(limit = 100): UnroutedWebhook[] {
    return this.sql<UnroutedWebhook>`SELECT * FROM webhook_unrouted
      ORDER BY last_at DESC, endpoint_id LIMIT ${limit}`.map((r) => ({ ...r }));
  }

  /** The endpoint's messages, newest first; `status: 'dead'` lists its dead letters. */
  messages(id: string, status?: MessageStatus, limit = 100): WebhookMessage[] {
    const rows =
      status === undefined
        ? this.sql<WebhookMessage>`SELECT * FROM webhook_messages WHERE endpoint_id = ${id}
          ORDER BY id DESC LIMIT ${limit}`
        : this.sql<WebhookMessage>`SELECT * FROM webhook_messages WHERE endpoint_id = ${id}
          AND status = ${status} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map((r) => ({ ...r }));
  }

  /** Sends a message again: the same `webhook-id` and body, a new series of attempts. */
  replay(endpointId: string, messageId: string, now: number): { ok: true } | Failure {
    const message = this.message(messageId);
    if (message?.endpoint_id !== endpointId) {
      return fail('not-found', `no webhook message ${messageId} for endpoint ${endpointId}`);
    }
    if (this.outbox.has('http', messageId))
      return fail('invalid-transition', `message ${messageId} is still being delivered`);
    const endpoint = this.#row(message.endpoint_id);
    if (!endpoint) return notFound(message.endpoint_id);
    if (endpoint.disabled_at !== null)
      return fail('invalid-transition', `endpoint ${endpoint.id} is disabled: enable it first`);
    this.#queue(message.endpoint_id, messageId, now);
    return { ok: true };
  }

  /**
   * Sends `body` to endpoint `endpointId` (call in the append's synchronous
   * stretch): its message id, or null when no endpoint has that id. Such a
   * message could never be delivered (a registration later is not sent what
   * came before it), so it is only counted (`unrouted`), not kept.
   */
  send(endpointId: string, eventType: string, body: unknown, now: number): string | null {
    const at = new Date(now).toISOString();
    const endpoint = this.#row(endpointId);
    if (endpoint === undefined) {
      this.sql`INSERT INTO webhook_unrouted
        (endpoint_id, skipped, first_at, last_at, last_event_type) VALUES (${endpointId}, 1, ${at}, ${at}, ${eventType})
        ON CONFLICT (endpoint_id) DO UPDATE SET skipped = skipped + 1, last_at = excluded.last_at,
          last_event_type = excluded.last_event_type`;
      return null;
    }
    const id = newPrefixedId('msg', now);
    const refusal =
      endpoint.disabled_at !== null ? `endpoint disabled: ${endpoint.disabled_reason ?? ''}` : null;
    this.sql`INSERT INTO webhook_messages
      (id, endpoint_id, event_type, body, status, created_at, updated_at, last_error)
      VALUES (${id}, ${endpointId}, ${eventType}, ${JSON.stringify(body) ?? 'null'},
        ${refusal === null ? 'pending' : 'dead'}, ${at}, ${at}, ${refusal})`;
    if (refusal === null) this.outbox.add({ via: 'http', target: endpointId, key: id }, now);
    return id;
  }

  /** Sends a stored Wire to every endpoint subscribed to its type (the append's stretch). */
  forward(wire: StoredWire, now: number): void {
    if (this.#subscribed.length === 0) return;
    for (const endpoint of this.#subscribed) {
      if (!subscribes(endpoint.types, wire.type)) continue;
      this.send(
        endpoint.id,
        wire.type,
        { type: wire.type, timestamp: wire.received_at, data: wire },
        now,
      );
    }
  }

  // The HTTP delivery's side.

  message(id: string): WebhookMessage | null {
    return this.sql<WebhookMessage>`SELECT * FROM webhook_messages WHERE id = ${id}`[0] ?? null;
  }

  /**
   * The endpoint's URL and the secrets that sign an attempt now, or why it
   * takes nothing. Asked on every attempt, so a retry is signed with the
   * secrets live when it is sent (after a rotation: the new one, and the old
   * one while its grace lasts), never with those of the first attempt.
   */
  target(id: string, now: number): { url: string; secrets: string[] } | { refused: string } {
    const row = this.#row(id);
    if (!row) return { refused: `no endpoint ${id} on this stream` };
    if (row.disabled_at !== null) return { refused: `endpoint disabled: ${row.disabled_reason}` };
    const secrets = this.#secrets(id, now).map((s) => s.secret);
    return { url: row.url, secrets };
  }

  logAttempt(endpointId: string, entry: DeliveryAttempt): void {
    this.sql`INSERT INTO webhook_attempts
      (endpoint_id, message_id, attempt, at, status, latency_ms, error)
      VALUES (${endpointId}, ${entry.message_id}, ${entry.attempt}, ${entry.at}, ${entry.status},
        ${entry.latency_ms}, ${entry.error})`;
    this.sql`DELETE FROM webhook_attempts WHERE endpoint_id = ${endpointId} AND id <= (
      SELECT id FROM webhook_attempts WHERE endpoint_id = ${endpointId}
      ORDER BY id DESC LIMIT 1 OFFSET ${LOG_LIMIT})`;
  }

  /**
   * Records a message's fate after an attempt. Delivered messages are kept
   * for replay up to `DELIVERED_LIMIT` per endpoint, the oldest going first
   * (a `*` endpoint would otherwise keep a copy of every Wire for good);
   * pending and dead ones stay until they are delivered.
   */
  settle(messageId: string, status: MessageStatus, error: string | null, now: number): void {
    this.sql`UPDATE webhook_messages SET status = ${status}, last_error = ${error},
      updated_at = ${new Date(now).toISOString()} WHERE id = ${messageId}`;
    if (status !== 'delivered') return;
    const endpoint = this.sql<{ endpoint_id: string }>`SELECT endpoint_id FROM webhook_messages
      WHERE id = ${messageId}`[0]?.endpoint_id;
    if (endpoint === undefined) return;
    this.sql`DELETE FROM webhook_messages WHERE endpoint_id = ${endpoint} AND status = 'delivered'
      AND id <= (SELECT id FROM webhook_messages WHERE endpoint_id = ${endpoint}
        AND status = 'delivered' ORDER BY id DESC LIMIT 1 OFFSET ${DELIVERED_LIMIT})`;
  }

  /** Whether an endpoint is registered under `id`. */
  registered(id: string): boolean {
    return this.#row(id) !== undefined;
  }

  /** The receiver answered 410 Gone: the endpoint takes nothing more until enabled. */
  gone(endpointId: string, now: number): void {
    this.enable(endpointId, false, now, 'the receiver answered 410 Gone');
  }

  #queue(endpointId: string, messageId: string, now: number): void {
    this.settle(messageId, 'pending', null, now);
    this.outbox.add({ via: 'http', target: endpointId, key: messageId }, now);
  }

  #row(id: string): EndpointRow | undefined {
    return this.sql<EndpointRow>`SELECT * FROM webhook_endpoints WHERE id = ${id}`[0];
  }

  #secrets(id: string, now: number): SecretRow[] {
    return this.sql<SecretRow>`SELECT secret, expires_at FROM webhook_secrets
      WHERE endpoint_id = ${id} AND (expires_at IS NULL OR expires_at > ${now})
      ORDER BY expires_at IS NULL DESC, expires_at DESC`;
  }

  #endpoint(id: string, now: number): Endpoint | null {
    const row = this.#row(id);
    if (!row) return null;
    return {
      ...row,
      types: JSON.parse(row.types) as string[],
      secrets: this.#secrets(id, now).map((s) => ({
        expires_at: s.expires_at === null ? null : new Date(s.expires_at).toISOString(),
      })),
    };
  }
}

function notFound(id: string): Failure {
  return fail('not-found', `no webhook endpoint ${id} on this stream`);
}
