import type { WirestreamClient } from './client';

/**
 * Seed 004's GSD project from the SDK: post colon events, read the
 * events.json view, and wait on it (the server's long poll, never a sleep).
 *
 *   const p = new ProjectClient(client, 'auth-service');
 *   await p.emit({ type: 'task:started', plan: '01-02', task: 1, timestamp: new Date().toISOString() });
 *   await p.waitFor({ type: 'task:completed', planPrefix: '01-' }, 3);
 */

/** A GSD event as the seed writes it: a colon `type` and any fields. */
export type GsdEvent = { type: string; [field: string]: unknown };

export interface EventsView {
  events: (GsdEvent & { id: unknown })[];
  lastEventId: number;
  retentionPolicy: string;
}

export interface EventsFilter {
  /** Colon types, comma-separated (`task:completed,task:failed`). */
  type?: string;
  planPrefix?: string;
  after?: number;
}

export interface Emitted {
  events: { id: number; wire_id: string }[];
  lastEventId: number;
}

export interface EmitOptions {
  /** A retry with the same key is answered, not stored again. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Retry network errors and 5xx (only safe with an idempotency key). Default: with a key. */
  retry?: boolean;
}

/** The server's longest single `wait` (seconds). */
const MAX_WAIT_SECONDS = 60;

export class ProjectClient {
  readonly base: string;

  constructor(
    readonly client: WirestreamClient,
    readonly project: string,
  ) {
    this.base = `/v1/projects/${encodeURIComponent(project)}`;
  }

  /** Posts one event, or an array (stored all or nothing). */
  async emit(events: GsdEvent | GsdEvent[], options: EmitOptions = {}): Promise<Emitted> {
    const key = options.idempotencyKey;
    const res = await this.client.http.request<Emitted>('POST', `${this.base}/events`, {
      body: events,
      retry: options.retry ?? key !== undefined,
      ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return res.body;
  }

  /** The events.json view, filtered; with `wait`, a long poll until `count` match. */
  async events(
    filter: EventsFilter = {},
    wait?: { seconds: number; count: number },
    signal?: AbortSignal,
  ): Promise<EventsView & { met: boolean }> {
    const q = new URLSearchParams();
    if (filter.type) q.set('type', filter.type);
    if (filter.planPrefix) q.set('plan_prefix', filter.planPrefix);
    if (filter.after) q.set('after', String(filter.after));
    if (wait) {
      q.set('wait', String(wait.seconds));
      q.set('count', String(wait.count));
      q.set('limit', String(Math.max(wait.count, 1000)));
    }
    const res = await this.client.http.request<EventsView>('GET', `${this.base}/events?${q}`, {
      ...(signal ? { signal } : {}),
    });
    return { ...res.body, met: res.headers.get('Wirestream-Wait') !== 'timeout' };
  }

  /**
   * Resolves when at least `count` events match (the seed orchestrator's
   * `jq … | length` ≥ EXPECTED), or after `timeoutMs` with what matched
   * (`met: false`). Each round is one long poll of up to 60 s.
   */
  async waitFor(
    filter: EventsFilter,
    count: number,
    timeoutMs = Number.POSITIVE_INFINITY,
    signal?: AbortSignal,
  ): Promise<EventsView & { met: boolean }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      const seconds = Math.min(MAX_WAIT_SECONDS, left);
      const view = await this.events(filter, { seconds, count }, signal);
      if (view.events.length >= count || seconds === 0 || Date.now() >= deadline) {
        return { ...view, met: view.events.length >= count };
      }
    }
  }

  /** The project's coordination state: plans, claims, checkpoints, decisions, config. */
  async state(): Promise<Record<string, unknown>> {
    return (await this.client.http.request<Record<string, unknown>>('GET', this.base)).body;
  }
}
