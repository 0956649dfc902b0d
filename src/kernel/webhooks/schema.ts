import { type Sql, schemaGate } from '../sql';

export type MessageStatus = 'pending' | 'delivered' | 'dead';

export type WebhookMessage = {
  id: string;
  endpoint_id: string;
  event_type: string;
  body: string;
  status: MessageStatus;
  created_at: string;
  updated_at: string;
  last_error: string | null;
};

export type DeliveryAttempt = {
  message_id: string;
  /** 1 for the first attempt of a series (a replay starts a new series). */
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (timeout, network). */
  status: number | null;
  latency_ms: number;
  error: string | null;
};

/**
 * Messages a kind sent to an id under which no endpoint is registered (a GSD
 * `custom:<name>` handler before `<name>` is registered): counted, not kept,
 * since no endpoint registered later is sent what came before it.
 */
export type UnroutedWebhook = {
  endpoint_id: string;
  skipped: number;
  first_at: string;
  last_at: string;
  last_event_type: string;
};

/** The secrets of an endpoint that still sign, the current one first. */
export type SecretRow = { secret: string; expires_at: number | null };
export type EndpointRow = {
  id: string;
  url: string;
  types: string;
  description: string | null;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
};

/** The webhook tables in the stream's SQLite (created once, guarded by a schema version). */
export function migrateWebhooks(sql: Sql): void {
  schemaGate(sql, 'webhooks', 2, (from) => {
    if (from < 1) createTables(sql);
    // Version 2: messages to an id with no endpoint are counted, not kept.
    sql`CREATE TABLE IF NOT EXISTS webhook_unrouted (
      endpoint_id TEXT PRIMARY KEY,
      skipped INTEGER NOT NULL,
      first_at TEXT NOT NULL,
      last_at TEXT NOT NULL,
      last_event_type TEXT NOT NULL
    )`;
    if (from === 1) {
      sql`INSERT INTO webhook_unrouted (endpoint_id, skipped, first_at, last_at, last_event_type)
        SELECT endpoint_id, COUNT(*), MIN(created_at), MAX(created_at),
          (SELECT event_type FROM webhook_messages l WHERE l.endpoint_id = m.endpoint_id
            ORDER BY created_at DESC LIMIT 1)
        FROM webhook_messages m WHERE last_error = 'no endpoint ' || endpoint_id || ' on this stream'
          AND endpoint_id NOT IN (SELECT id FROM webhook_endpoints)
        GROUP BY endpoint_id`;
      sql`DELETE FROM webhook_messages WHERE last_error = 'no endpoint ' || endpoint_id || ' on this stream'
        AND endpoint_id NOT IN (SELECT id FROM webhook_endpoints)`;
    }
  });
}

function createTables(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    types TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL,
    disabled_at TEXT,
    disabled_reason TEXT
  )`;
  sql`CREATE TABLE IF NOT EXISTS webhook_secrets (
    endpoint_id TEXT NOT NULL,
    secret TEXT NOT NULL,
    expires_at INTEGER
  )`;
  sql`CREATE TABLE IF NOT EXISTS webhook_messages (
    id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_error TEXT
  )`;
  sql`CREATE INDEX IF NOT EXISTS webhook_messages_endpoint
    ON webhook_messages (endpoint_id, status)`;
  sql`CREATE TABLE IF NOT EXISTS webhook_attempts (
    id INTEGER PRIMARY KEY,
    endpoint_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    at TEXT NOT NULL,
    status INTEGER,
    latency_ms INTEGER NOT NULL,
    error TEXT
  )`;
  sql`CREATE INDEX IF NOT EXISTS webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id)`;
}
