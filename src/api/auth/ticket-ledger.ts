import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';
import { sqlOf } from '../../kernel/sql';

/** How long past its expiry a spent ticket is remembered. */
const GRACE_SECONDS = 60;

/**
 * Tickets (`POST /v1/tickets`) ride in a WebSocket URL, and URLs end up in
 * logs and proxies: each opens one socket only. One ledger per subject holds
 * the tickets it spent until a minute past expiry, in storage, so a ticket
 * stays spent when the object is evicted. Keyed by subject, no one ledger
 * sees everyone.
 */
export class TicketLedger extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = sqlOf(ctx.storage.sql);
    this.#sql`CREATE TABLE IF NOT EXISTS spent (ticket TEXT PRIMARY KEY, exp INTEGER NOT NULL)`;
  }

  /** True the first time `ticket` (a digest) is spent, false ever after. */
  spend(ticket: string, exp: number): boolean {
    // Kept a minute past expiry: the Worker that found the ticket unexpired
    // judged by its own clock, which may run behind this one.
    this.#sql`DELETE FROM spent WHERE exp < ${Math.floor(Date.now() / 1000) - GRACE_SECONDS}`;
    return (
      this.#sql`INSERT OR IGNORE INTO spent (ticket, exp) VALUES (${ticket}, ${exp})
        RETURNING ticket`.length === 1
    );
  }
}

interface TicketLedgerApi {
  spend(ticket: string, exp: number): Promise<boolean>;
}

/** Marks the ticket spent; false if it was spent before. */
export async function spendTicket(
  env: Pick<Env, 'TICKETS'>,
  sub: string,
  token: string,
  exp: number,
): Promise<boolean> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const ledger = env.TICKETS.get(env.TICKETS.idFromName(sub)) as unknown as TicketLedgerApi;
  return ledger.spend(hex, exp);
}
