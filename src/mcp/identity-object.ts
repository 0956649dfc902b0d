import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { sqlOf } from '../kernel/sql';

/** An MCP session of the 2025 era: who opened it and as which client. */
export interface McpSession {
  sub: string;
  client: string | null;
  protocol_version: string;
  opened_at: string;
}

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

/**
 * The MCP server's identity memory. Sessions: a 2025-era client declares
 * itself once at `initialize` (`clientInfo.name`); the Worker that serves a
 * later request may run in another isolate, so the session lives here, one
 * object per `Mcp-Session-Id` (`session:<id>`), holding the client info and
 * never the transport. Registry: one object (`registry`) lists every HAID
 * that acted, with its role.
 */
export class McpIdentity extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = sqlOf(ctx.storage.sql);
    this.#sql`CREATE TABLE IF NOT EXISTS session (
      id INTEGER PRIMARY KEY CHECK (id = 1), sub TEXT NOT NULL, client TEXT,
      protocol_version TEXT NOT NULL, opened_at TEXT NOT NULL, ended INTEGER NOT NULL DEFAULT 0)`;
    this.#sql`CREATE TABLE IF NOT EXISTS haids (
      haid TEXT PRIMARY KEY, root TEXT NOT NULL, role TEXT,
      registered_at TEXT NOT NULL, last_seen_at TEXT NOT NULL)`;
  }

  open(session: McpSession): void {
    this.#sql`INSERT OR REPLACE INTO session (id, sub, client, protocol_version, opened_at, ended)
      VALUES (1, ${session.sub}, ${session.client}, ${session.protocol_version}, ${session.opened_at}, 0)`;
  }

  /** The live session, if `sub` opened it; null when unknown, ended or someone else's. */
  session(sub: string): McpSession | null {
    const row = this.#sql<{
      sub: string;
      client: string | null;
      protocol_version: string;
      opened_at: string;
    }>`SELECT sub, client, protocol_version, opened_at FROM session WHERE id = 1 AND ended = 0`[0];
    return row && row.sub === sub ? { ...row } : null;
  }

  /** Ends the session (DELETE /mcp); false when there was none to end. */
  end(sub: string): boolean {
    if (!this.session(sub)) return false;
    this.#sql`UPDATE session SET ended = 1 WHERE id = 1`;
    return true;
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
  open(session: McpSession): Promise<void>;
  session(sub: string): Promise<McpSession | null>;
  end(sub: string): Promise<boolean>;
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
