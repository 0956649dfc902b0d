import { type OfferedSignature, SIGNATURES_HEADER } from '../protocol/signature';
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter, type RetryPolicy, sleep } from './backoff';
import { errorFromResponse, WirestreamError } from './errors';
import { SIGNING_ROUNDS, wiresToSign } from './signing';

/** A token, or a function that returns a fresh one (called per request). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface HttpOptions {
  baseUrl: string;
  token?: TokenSource;
  fetch: typeof fetch;
  retry: RetryPolicy;
  /** Called before each retry (for logs and progress output). */
  onRetry?: (info: { attempt: number; delayMs: number; error: WirestreamError }) => void;
  /**
   * Signs a Wire the server built from a request (a refusal's `unsigned`):
   * the request is then repeated with the signature offered in
   * `Wirestream-Signatures`. Set by the client when it has a signing key.
   */
  sign?: (unsigned: Record<string, unknown>) => Promise<OfferedSignature>;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Only requests that are safe to repeat retry (GETs, appends with a wire_id). */
  retry?: boolean;
  signal?: AbortSignal;
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * fetch with the things every call needs: the base URL, the bearer token,
 * JSON in and out, problem+json turned into `WirestreamError`, and retries
 * with backoff for network errors, 5xx and 429 (honouring `Retry-After`).
 */
export class Http {
  constructor(readonly options: HttpOptions) {}

  url(path: string): string {
    return new URL(path, this.options.baseUrl).toString();
  }

  async token(): Promise<string | undefined> {
    const source = this.options.token;
    return typeof source === 'function' ? await source() : source;
  }

  async request<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<JsonResponse<T>> {
    const policy = this.options.retry;
    const attempts = options.retry === false ? 1 : policy.attempts;
    const offers: OfferedSignature[] = [];
    let send = options;
    for (let attempt = 0, rounds = 0; ; attempt++) {
      let error: WirestreamError;
      let retryAfter: number | undefined;
      try {
        const res = await this.#send(method, path, send);
        if (res.ok) {
          const text = await res.text();
          return { status: res.status, headers: res.headers, body: parseBody<T>(res, text) };
        }
        error = await errorFromResponse(res);
        retryAfter = parseRetryAfter(res.headers.get('Retry-After'));
      } catch (cause) {
        if (options.signal?.aborted || cause instanceof WirestreamError) throw cause;
        error = new WirestreamError(0, 'network', (cause as Error).message ?? String(cause));
      }
      // A keyed sender's Wire the server built: sign what it showed, ask again (no retry spent).
      const wanted = this.options.sign && rounds < SIGNING_ROUNDS ? wiresToSign(error.problem) : [];
      if (wanted.length > 0 && this.options.sign) {
        for (const unsigned of wanted) offers.push(await this.options.sign(unsigned));
        send = {
          ...options,
          headers: { ...options.headers, [SIGNATURES_HEADER]: JSON.stringify(offers) },
        };
        rounds++;
        attempt--;
        continue;
      }
      if (!error.retryable || attempt + 1 >= attempts) throw error;
      const delayMs = backoffDelay(attempt, policy, retryAfter);
      this.options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  async #send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const token = await this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    const init: RequestInit = { method, headers };
    if (options.signal) init.signal = options.signal;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    return this.options.fetch(this.url(path), init);
  }
}

/** A 2xx that is not JSON is a wrong URL (say, a static page), not a reason to retry. */
function parseBody<T>(res: Response, text: string): T {
  if (!text) return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    const type = res.headers.get('Content-Type') ?? 'no content type';
    throw new WirestreamError(res.status, 'not-json', `expected JSON from ${res.url}, got ${type}`);
  }
}

export { DEFAULT_RETRY };
