import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { FailureCode } from '../protocol';
import { problem } from './problem';

/**
 * hono's own middleware speaks in `HTTPException`s: its validator throws a
 * 400 for malformed JSON, `bodyLimit` a 413, `jwt` a 401. Those are the
 * client's mistakes, so they leave as the matching problem+json, never as
 * the 500 an unexpected error gets. https://hono.dev/docs/api/exception
 */
const CODES: Partial<Record<number, FailureCode>> = {
  400: 'malformed-json',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not-found',
  413: 'envelope-too-large',
  415: 'unsupported-media-type',
  422: 'invalid-body',
  429: 'rate-limited',
};

/** The problem response for a client-side `HTTPException`, or null for anything else. */
export function httpExceptionProblem(error: unknown, c: Context): Response | null {
  if (!(error instanceof HTTPException) || error.status < 400 || error.status >= 500) return null;
  // A 400 that is not about JSON (a malformed form, a bad mount path) is still
  // the request's fault: invalid-header is the closest generic 400 we publish.
  const code =
    error.status === 400 && !/json/i.test(error.message)
      ? 'invalid-header'
      : (CODES[error.status] ?? 'invalid-body');
  const detail = error.message || `the request was refused (${error.status})`;
  return problem(c, { code, detail });
}
