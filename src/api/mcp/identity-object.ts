import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { sqlOf } from '../../kernel/sql';
import type { McpSession } from '../../mcp/contract';

export type { McpSession };

/** One entry of the HAID registry (the seed's `heimdall-haid register`). */
export interface HaidEntry {
  haid: string;
  root: string;
  /** The client (`cursor`, `claude-code`…), the seed's role field; null for a bare root. */
  role: string | null;
  status: 'active';
  registered_at: string;
  last_seen_at: string;
}

/** Idle time after which a session expires (`MCP_SESSION_IDLE_SECONDS`, default 30 minutes). */
export const DEFAULT_SESSION_IDLE_SECONDS = 1800;

export function sessionIdleMs(env: Pick<Env, 'MCP_SESSION_IDLE_SECONDS'>): number {
  const seconds = Number(env.MCP_SESSION_IDLE_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_SESSION_IDLE_SECONDS) * 1000;
}

/**
 * The MCP server's identity memory. Sessions: a 2025-era client declares
 * itself once at `initialize` (`clientInfo.name`); the Worker that serves a
 * later request may run in another isolate, so the session lives here, one
 * object per `Mcp-Session-Id` (`session:<id>`), holding the client info and
 * never the transport. A session expires after an idle time (each request
 * of its subject restarts the count); the caller passes the clock, so the
 * rule is tested without waiting. Registry: one object (`registry`) lists
 * every HAID that acted, with its role.
 */
export class McpIdentity extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = sqlOf(ctx.storage.sql);
    this.#sql`CREATE TABLE IF NOT EXISTS session (
      id INTEGER PRIMARY KEY CHECK (id = 1), sub TEXT NOT NULL, client TEXT,
      protocol_version TEXT NOT NULL, opened_at TEXT NOT NULL, ended INTEGER NOT NULL DEFAULT 0)`;
    // Sessions opened before expiry existed have no clock: they count from now.
    const columns = this.#sql<{ name: string }>`SELECT name FROM pragma_table_info('session')`;
    if (!columns.some((c) => c.name === 'last_seen_ms')) {
      this.#sql`ALTER TABLE session ADD COLUMN last_seen_ms INTEGER`;
      this.#sql`ALTER TABLE session ADD COLUMN idle_ms INTEGER`;
    }
    this.#sql`CREATE TABLE IF NOT EXISTS haids (
      haid TEXT PRIMARY KEY, root TEXT NOT NULL, role TEXT,
      registered_at TEXT NOT NULL, last_seen_at TEXT NOT NULL)`;
  }

  /** Opens the session at `nowMs`; it expires after `idleMs` without a request. */
  async open(session: McpSession, nowMs: number, idleMs: number): Promise<void> {
    this.#sql`INSERT OR REPLACE INTO session
      (id, sub, client, protocol_version, opened_at, ended, last_seen_ms, idle_ms)
      VALUES (1, ${session.sub}, ${session.client}, ${session.protocol_version},
        ${session.opened_at}, 0, ${nowMs}, ${idleMs})`;
    // The alarm only clears storage after expiry; requests decide expiry themselves.
    await this.ctx.storage.setAlarm(nowMs + idleMs);
  }

  /**
   * The live session at `nowMs`, if `sub` opened it, and a request of it
   * restarts its idle count (to within 1/20 of the idle time); null when
   * unknown, ended, expired (which ends it) or someone else's.
   */
  session(sub: string, nowMs: number): McpSession | null {
    const row = this.#live();
    if (!row || row.sub !== sub) return null;
    const last = row.last_seen_ms ?? nowMs;
    const idle = row.idle_ms ?? sessionIdleMs(this.env);
    if (nowMs - last > idle) {
      this.#sql`UPDATE session SET ended = 1 WHERE id = 1`;
      return null;
    }
    // The idle count restarts only once 1/20 of it has passed: not a write per request.
    if (row.last_seen_ms === null || nowMs - last > idle / 20) {
      this.#sql`UPDATE session SET last_seen_ms = ${nowMs} WHERE id = 1`;
    }
    const { sub: s, client, protocol_version, opened_at } = row;
    return { sub: s, client, protocol_version, opened_at };
  }

  /** Ends the session (DELETE /mcp); false when there was none to end. */
  end(sub: string, nowMs: number): boolean {
    if (!this.session(sub, nowMs)) return false;
    this.#sql`UPDATE session SET ended = 1 WHERE id = 1`;
    return true;
  }

  /** Forgets an ended or expired session; a live one is looked at again when it could expire. */
  override async alarm(): Promise<void> {
    const row = this.#live();
    const due = row ? (row.last_seen_ms ?? 0) + (row.idle_ms ?? sessionIdleMs(this.env)) : 0;
    if (row && due >= Date.now()) {
      await this.ctx.storage.setAlarm(due + 1);
      return;
    }
    this.#sql`DELETE FROM session`;
  }

  #live() {
    return this.#sql<{
      sub: string;
      client: string | null;
      protocol_version: string;
      opened_at: string;
      last_seen_ms: number | null;
      idle_ms: number | null;
    }>`SELECT sub, client, protocol_version, opened_at, last_seen_ms, idle_ms
      FROM session WHERE id = 1 AND ended = 0`[0];
  }

  register(haid: string, root: string, role: string | null, at: string): HaidEntry {
    this.#sql`INSERT INTO haids (haid, root, role, registered_at, last_seen_at)
      VALUES (${haid}, ${root}, ${role}, ${at}, ${at})
      ON CONFLICT (haid) DO UPDATE SET last_seen_at = excluded.last_seen_at`;
    return this.list(haid)[0] as HaidEntry;
  }

  /** Registered HAIDs, oldest first; with `haid`, that one only. */
  list(haid?: string): HaidEntry[] {
    const rows =
      haid === undefined
        ? this.#sql<Record<string, string | null>>`SELECT * FROM haids ORDER BY registered_at, haid`
        : this.#sql<Record<string, string | null>>`SELECT * FROM haids WHERE haid = ${haid}`;
    return rows.map((r) => ({
      haid: String(r.haid),
      root: String(r.root),
      role: r.role ?? null,
      status: 'active',
      registered_at: String(r.registered_at),
      last_seen_at: String(r.last_seen_at),
    }));
  }
}

interface McpIdentityApi {
  open(session: McpSession, nowMs: number, idleMs: number): Promise<void>;
  session(sub: string, nowMs: number): Promise<McpSession | null>;
  end(sub: string, nowMs: number): Promise<boolean>;
  register(haid: string, root: string, role: string | null, at: string): Promise<HaidEntry>;
  list(haid?: string): Promise<HaidEntry[]>;
}

export function sessionObject(env: Pick<Env, 'MCP_IDENTITY'>, sessionId: string): McpIdentityApi {
  const ns = env.MCP_IDENTITY;
  return ns.get(ns.idFromName(`session:${sessionId}`)) as unknown as McpIdentityApi;
}

export function haidRegistry(env: Pick<Env, 'MCP_IDENTITY'>): McpIdentityApi {
  const ns = env.MCP_IDENTITY;
  return ns.get(ns.idFromName('registry')) as unknown as McpIdentityApi;
}
