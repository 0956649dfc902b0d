import { newWireId } from '../protocol/ids';
import { DEFAULT_RETRY, sleep } from './backoff';
import type {
  AppendInput,
  AppendResult,
  ClientOptions,
  ProofOptions,
  StreamInfo,
  WirePage,
} from './client-types';
import { WirestreamError } from './errors';
import { Http } from './http';
import { type ClaimOptions, claimTask, type TaskLease } from './lease';
import { type LogProof, verifyLogProof } from './log-proof';
import { namedWireProblem, verifyMessage } from './proof';
import { type AgentKey, signatureOffer, signWire } from './signing';
import { Subscription } from './subscription';
import type { SubscribeOptions } from './subscription-types';
import type { AppendReceipt, ServedWire, WebSocketConstructor, WireProof } from './types';

/** The Wirestream API from Node 20, browsers and Workers (fetch + WebSocket). */
export class WirestreamClient {
  readonly http: Http;
  readonly #options: ClientOptions;

  constructor(options: ClientOptions = {}) {
    this.#options = options;
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.http = new Http({
      baseUrl: options.baseUrl ?? 'http://127.0.0.1:8787',
      fetch: fetchImpl,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      ...(options.signingKey ? { sign: offerWith(options.signingKey) } : {}),
    });
  }

  /**
   * Appends one Wire. The `wire_id` is minted once, before the first attempt,
   * so a retry after a lost answer is a replay the server recognises (200
   * `Idempotent-Replay`) — never a second Wire.
   */
  async append(streamId: string, input: AppendInput, signal?: AbortSignal): Promise<AppendResult> {
    const { ifMatch, ...fields } = input;
    const sender = fields.sender ?? this.#options.sender;
    if (!sender) throw new TypeError('append needs a sender (in the input or the client options)');
    const unsigned = {
      ...fields,
      wire: '1.1' as const,
      wire_id: fields.wire_id ?? newWireId(),
      stream_id: streamId,
      sender,
      ts: fields.ts ?? new Date().toISOString(),
    };
    const key = this.#options.signingKey;
    const wire = key && !unsigned.sig ? await signWire(unsigned, await key) : unsigned;
    const headers: Record<string, string> = {};
    if (ifMatch !== undefined) headers['If-Match'] = `"${ifMatch}"`;
    const res = await this.http.request<AppendReceipt>('POST', `${streamPath(streamId)}/wires`, {
      body: wire,
      headers,
      ...(signal ? { signal } : {}),
    });
    return { receipt: res.body, replay: res.headers.get('Idempotent-Replay') === 'true', wire };
  }

  /** One page of a stream after `afterSeq`. */
  async read(streamId: string, afterSeq = 0, limit = 100): Promise<WirePage> {
    const q = `after_seq=${afterSeq}&limit=${limit}`;
    return (await this.http.request<WirePage>('GET', `${streamPath(streamId)}/wires?${q}`)).body;
  }

  /** Every Wire after `afterSeq`, page by page, in stream_seq order. */
  async *readAll(streamId: string, afterSeq = 0, pageSize = 1000): AsyncGenerator<ServedWire> {
    let after = afterSeq;
    for (;;) {
      const page = await this.read(streamId, after, pageSize);
      yield* page.wires;
      if (page.next_after_seq === null) return;
      after = page.next_after_seq;
    }
  }

  /** The stream's head, or null if it has no Wires yet. */
  async info(streamId: string): Promise<StreamInfo | null> {
    try {
      return (await this.http.request<StreamInfo>('GET', streamPath(streamId))).body;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
  }

  /** Follows a stream live (see `Subscription`). */
  subscribe(streamId: string, options: SubscribeOptions): Subscription {
    return this.#subscribe(`${streamPath(streamId)}/ws`, options);
  }

  /**
   * The live feed as an async iterator, with backpressure: the next batch is
   * acknowledged only once the loop has taken every Wire of this one.
   *   for await (const wire of client.follow('project:kv')) { … }
   */
  async *follow(
    streamId: string,
    options: { afterSeq?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ServedWire> {
    const at: { batch: { wires: ServedWire[]; done: () => void } | null; wake: () => void } = {
      batch: null,
      wake: () => {},
    };
    let ended = false;
    let failure: unknown = null;
    const sub = this.subscribe(streamId, {
      ...options,
      onWires: (wires) =>
        new Promise<void>((done) => {
          at.batch = { wires, done };
          at.wake();
        }),
    });
    sub.closed.then(
      () => {
        ended = true;
        at.wake();
      },
      (error: unknown) => {
        failure = error;
        ended = true;
        at.wake();
      },
    );
    let current: { wires: ServedWire[]; done: () => void } | null = null;
    try {
      while (!ended || at.batch) {
        current = at.batch;
        if (!current) {
          await new Promise<void>((resolve) => {
            at.wake = resolve;
          });
          continue;
        }
        at.batch = null;
        yield* current.wires;
        current.done();
        current = null;
      }
      if (failure !== null) throw failure;
    } finally {
      current?.done();
      sub.close();
    }
  }

  /** Follows a role pool's feed (`/v1/roles/{role}/ws`), e.g. `task.available` for developers. */
  subscribeRole(role: string, options: SubscribeOptions): Subscription {
    return this.#subscribe(`/v1/roles/${encodeURIComponent(role)}/ws`, options);
  }

  /**
   * Claims a task attempt and keeps the lease alive with heartbeats; every
   * lifecycle Wire appended through the lease carries its fencing token.
   */
  claim(task: string, options: ClaimOptions): Promise<TaskLease> {
    const sender = this.#options.sender;
    if (!sender) throw new TypeError('claim needs a sender (agent:<id>) in the client options');
    return claimTask(this, sender, task, options);
  }

  /**
   * Where a Wire sits on HCS. The server answers 404 `not-found` until the
   * Wire is anchored (about a second after the append); with `waitMs` the
   * call asks again, backing off up to 1 s, until then, and throws that
   * `not-found` only once `waitMs` has passed (as it does for an unknown id).
   */
  async proof(wireId: string, options: ProofOptions = {}): Promise<WireProof> {
    const query = options.streamId ? `?stream_id=${encodeURIComponent(options.streamId)}` : '';
    const path = `/v1/wires/${encodeURIComponent(wireId)}/proof${query}`;
    const deadline = Date.now() + (options.waitMs ?? 0);
    for (let attempt = 0; ; attempt++) {
      try {
        const init = options.signal ? { signal: options.signal } : {};
        return (await this.http.request<WireProof>('GET', path, init)).body;
      } catch (error) {
        const left = deadline - Date.now();
        if (!(error instanceof WirestreamError) || error.code !== 'not-found' || left <= 0) {
          throw error;
        }
        await sleep(Math.min(left, 1000, 100 * 2 ** Math.min(attempt, 4)), options.signal);
      }
    }
  }

  /**
   * Checks a proof against the mirror node: recomputes the message's running
   * hash from the previous message's, compares the anchored message with the
   * proof's and checks that it is the Wire the proof names. `mirrorUrl`
   * defaults to the one the proof links to.
   */
  async checkProof(proof: WireProof, mirrorUrl?: string) {
    if ((proof as { mode?: unknown }).mode === 'log') {
      throw new TypeError('checkProof: this is a log-mode proof (mode "log"); use checkLogProof');
    }
    const base = mirrorUrl ?? proof.mirror_url.replace(/\/api\/v1\/.*$/, '');
    const fetchImpl = this.#options.fetch;
    const whole = proof.hcs_chunks === 1 ? proof.message : undefined;
    const checked = await verifyMessage(
      { mirrorUrl: base, ...(fetchImpl ? { fetch: fetchImpl } : {}) },
      proof.hcs_topic_id,
      proof.hcs_sequence_number,
      whole,
    );
    const named = checked.ok ? namedWireProblem(proof.wire_id, whole) : null;
    return named ? { ...checked, ok: false, reason: named } : checked;
  }

  /**
   * Checks a log-mode proof (`mode: "log"`) against the mirror node, as
   * `verifyLogProof` does; the mirror defaults to the one the proof links to.
   * Without `verifierKey(s)` the log's keys are the ones the proof names
   * (`verifier_keys`: after a key rotation, earlier keys too).
   */
  checkLogProof(
    proof: LogProof,
    options: { mirrorUrl?: string; verifierKey?: string; verifierKeys?: string[] } = {},
  ) {
    const linked = proof.checkpoint_anchor.mirror_url ?? '';
    const mirrorUrl = options.mirrorUrl ?? linked.replace(/\/api\/v1\/.*$/, '');
    const fetchImpl = this.#options.fetch;
    return verifyLogProof(
      { ...options, mirrorUrl, ...(fetchImpl ? { fetch: fetchImpl } : {}) },
      proof,
    );
  }

  /** GET a JSON resource under the API (read models and the like). */
  async get<T>(path: string): Promise<T> {
    return (await this.http.request<T>('GET', path)).body;
  }

  #subscribe(path: string, options: SubscribeOptions): Subscription {
    const WebSocketImpl =
      this.#options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketImpl) {
      throw new TypeError('no WebSocket here: pass one in the client options (Node 20: ws)');
    }
    return new Subscription(
      {
        http: this.http,
        WebSocket: WebSocketImpl,
        path,
        reconnect: {
          attempts: Number.POSITIVE_INFINITY,
          baseMs: 250,
          maxMs: 5000,
          ...this.#options.reconnect,
        },
        wsAuth: this.#options.wsAuth ?? 'protocol',
        pingMs: this.#options.pingMs ?? 20_000,
      },
      options,
    );
  }
}

export function streamPath(streamId: string): string {
  return `/v1/streams/${encodeURIComponent(streamId)}`;
}

/** Signs a Wire the server built (a refusal's `unsigned`) as an offer for `Wirestream-Signatures`. */
function offerWith(key: AgentKey | Promise<AgentKey>) {
  return async (unsigned: Record<string, unknown>) => signatureOffer(unsigned, await key);
}
