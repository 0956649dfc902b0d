/**
 * A failed request, carrying the server's problem+json (RFC 9457) when there
 * was one. `code` is the stable tail of the problem `type` (`wire-id-conflict`,
 * `stale-stream`, …) so callers branch on it, never on `detail` text.
 */
export class WirestreamError extends Error {
  override readonly name = 'WirestreamError';

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly problem: Record<string, unknown> = {},
  ) {
    // Status 0: no HTTP answer at all (network, timeout), so no status to show.
    super(status === 0 ? `${code}: ${detail}` : `${status} ${code}: ${detail}`);
  }

  /** Network failures, 5xx and 429 may succeed when tried again. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** Builds an error from a non-2xx response (problem+json or anything else). */
export async function errorFromResponse(res: Response): Promise<WirestreamError> {
  const text = await res.text().catch(() => '');
  let problem: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') problem = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: keep the raw text as the detail below.
  }
  const type = typeof problem.type === 'string' ? problem.type : '';
  const code = type.startsWith('/problems/')
    ? type.slice('/problems/'.length)
    : `http-${res.status}`;
  const detail =
    typeof problem.detail === 'string' ? problem.detail : text.slice(0, 200) || res.statusText;
  return new WirestreamError(res.status, code, detail, problem);
}
