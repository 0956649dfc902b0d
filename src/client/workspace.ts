import type { WirestreamClient } from './client';
import { errorFromResponse } from './errors';

/**
 * Seed 001's Heimdall workspace from the SDK: the calls of the seed's bins
 * (`heimdall-resolve`, `-capsule`, `-brief`, `-blackboard`, `-ledger`,
 * `-validate`, `heimdall-claim`) over `/v1/workspaces/{ws}/…`.
 *
 *   const w = new WorkspaceClient(client, 'demo');
 *   await w.setSymbol('F12', 'src/matching/engine.ts');
 *   (await w.ledgerDelta('orchestration')).line;
 */

type Json = Record<string, unknown>;

export interface ClaimInput {
  surfaces: string[];
  task: string;
  ttl_minutes?: number;
  mode?: 'exclusive' | 'shared';
  haid?: string;
}

export interface CapsuleInput {
  what: string;
  where?: string;
  decision?: string;
  gotcha?: string;
  depends?: string[];
}

export interface BriefInput {
  task: string;
  spec: string;
  symbols?: string[];
  capsules?: string[];
  invariants?: string | null;
  role?: string;
  tokens?: number;
  /** Answer the brief without storing or logging it. */
  dry_run?: boolean;
}

export class WorkspaceClient {
  readonly base: string;

  constructor(
    readonly client: WirestreamClient,
    readonly workspace: string,
  ) {
    this.base = `/v1/workspaces/${encodeURIComponent(workspace)}`;
  }

  async #call<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
    // Writes are not retried: they carry no idempotency key.
    const res = await this.client.http.request<T>(method, `${this.base}${path}`, {
      ...(body === undefined ? {} : { body }),
      retry: method === 'GET',
    });
    return res.body;
  }

  async #text(path: string): Promise<string> {
    const http = this.client.http;
    const token = await http.token();
    const res = await http.options.fetch(http.url(`${this.base}${path}`), {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    if (!res.ok) throw await errorFromResponse(res);
    return res.text();
  }

  // symbols (heimdall-resolve)
  setSymbol(id: string, value: string, force = false) {
    return this.#call('PUT', `/symbols/${encodeURIComponent(id)}`, {
      value,
      ...(force ? { force } : {}),
    });
  }
  async resolve(id: string): Promise<string> {
    const { symbol } = await this.#call<{ symbol: { value: string } }>(
      'GET',
      `/symbols/${encodeURIComponent(id)}`,
    );
    return symbol.value;
  }
  async reverse(value: string): Promise<string> {
    return (
      await this.#call<{ id: string }>('GET', `/symbols?reverse=${encodeURIComponent(value)}`)
    ).id;
  }
  async symbols(): Promise<{ id: string; value: string }[]> {
    return (await this.#call<{ symbols: { id: string; value: string }[] }>('GET', '/symbols'))
      .symbols;
  }

  // capsules (heimdall-capsule)
  writeCapsule(id: string, capsule: CapsuleInput) {
    return this.#call('PUT', `/capsules/${encodeURIComponent(id)}`, capsule);
  }
  async hydrate(id: string): Promise<Json[]> {
    return (
      await this.#call<{ capsules: Json[] }>('GET', `/capsules/${encodeURIComponent(id)}/hydrate`)
    ).capsules;
  }
  async deps(id: string): Promise<string[]> {
    return (await this.#call<{ ids: string[] }>('GET', `/capsules/${encodeURIComponent(id)}/deps`))
      .ids;
  }

  // briefs (heimdall-brief)
  buildBrief(input: BriefInput) {
    return this.#call<{
      brief: Json & { text: string };
      tokens: number;
      tokens_estimated: boolean;
    }>('POST', '/briefs', input);
  }

  // blackboard (heimdall-blackboard)
  setFact(key: string, value: string) {
    return this.#call('PUT', `/blackboard/${encodeURIComponent(key)}`, { value });
  }
  async fact(key: string): Promise<string> {
    return (
      await this.#call<{ entry: { value: string } }>(
        'GET',
        `/blackboard/${encodeURIComponent(key)}`,
      )
    ).entry.value;
  }
  async facts(): Promise<{ key: string; value: string }[]> {
    return (await this.#call<{ entries: { key: string; value: string }[] }>('GET', '/blackboard'))
      .entries;
  }

  // ledger (heimdall-ledger)
  ledgerLog(line: { role: string; kind: string; tokens: number; msg_id?: string }) {
    return this.#call('POST', '/ledger/log', line);
  }
  ledgerBaseline(role: string, tokens: number) {
    return this.#call('POST', '/ledger/baseline', { role, tokens });
  }
  ledgerDelta(role: string) {
    return this.#call<{ line: string; baseline: number; measured: number; delta_percent: number }>(
      'GET',
      `/ledger/delta?role=${encodeURIComponent(role)}`,
    );
  }
  ledgerReport() {
    return this.#call<{
      roles: { role: string; tokens: number; lines: number; baseline: number | null }[];
    }>('GET', '/ledger/report');
  }

  // typed messages (heimdall-validate)
  async validate(message: unknown): Promise<{ valid: boolean; errors: string[] }> {
    const res = await this.client.http.request<{ valid: boolean; errors: string[] }>(
      'POST',
      '/v1/heimdall/validate',
      {
        body: message,
      },
    );
    return res.body;
  }
  /** Posts a message to the workspace: validated on receipt (one retry, then escalation). */
  send(message: unknown) {
    return this.#call('POST', '/messages', message);
  }

  // claims (heimdall-claim)
  claim(input: ClaimInput) {
    return this.#call<{ claim: Json & { claim_id: string } }>('POST', '/claims', input);
  }
  async claims(): Promise<Json[]> {
    return (await this.#call<{ claims: Json[] }>('GET', '/claims')).claims;
  }
  release(haid: string) {
    return this.#call<{ released: string[] }>('POST', '/claims/release', { haid });
  }
  releaseClaim(claimId: string) {
    return this.#call<{ released: string[] }>('DELETE', `/claims/${encodeURIComponent(claimId)}`);
  }
  renew(claimId: string, ttlMinutes?: number) {
    return this.#call(
      'POST',
      `/claims/${encodeURIComponent(claimId)}/renew`,
      ttlMinutes ? { ttl_minutes: ttlMinutes } : {},
    );
  }

  /** The audit log's last `n` lines (heimdall-protocol log N). */
  log(n = 50): Promise<string> {
    return this.#text(`/log?n=${n}`);
  }
}
