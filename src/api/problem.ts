import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { REGISTRY } from '../modules';
import type { Failure } from '../protocol';

/**
 * RFC 9457 problem details. Every expected failure leaves the API through
 * here; `type` is a stable URI under `/problems/` (served by this Worker).
 */
type ProblemMeta = { status: number; title: string };

/** The kernel's own problem types; `problemMeta` adds the modules'. */
const CORE_PROBLEMS: Record<string, ProblemMeta> = {
  'malformed-json': { status: 400, title: 'The body is not valid JSON' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'envelope-too-large': { status: 413, title: 'Envelope too large' },
  'incomplete-body': { status: 400, title: 'The body ended before it was complete' },
  'invalid-wire': { status: 422, title: 'The Wire does not match the protocol' },
  'invalid-stream-id': { status: 400, title: 'Invalid stream id' },
  'stream-id-mismatch': { status: 400, title: 'stream_id differs from the path' },
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'invalid-header': { status: 400, title: 'Invalid request header' },
  'wire-id-conflict': { status: 409, title: 'wire_id already used for different content' },
  'ambiguous-wire-id': { status: 409, title: 'wire_id names Wires on several streams' },
  'stale-stream': { status: 412, title: 'The stream has moved on' },
  'not-found': { status: 404, title: 'Not found' },
  unauthenticated: { status: 401, title: 'A valid bearer token is required' },
  forbidden: { status: 403, title: 'The token does not allow this' },
  'secret-in-payload': { status: 422, title: 'The Wire holds a secret-shaped value' },
  'signature-required': { status: 403, title: "The sender's Wires must be signed" },
  'signature-invalid': { status: 403, title: 'The signature does not verify' },
  'json-too-deep': { status: 400, title: 'The JSON is nested too deeply' },
  'rate-limited': { status: 429, title: 'Too many Wires from this sender' },
  'too-many-subscribers': { status: 429, title: 'The stream has too many subscribers' },
  'invalid-body': { status: 422, title: 'The request body is not valid' },
  'rebuild-running': { status: 409, title: 'A rebuild is running already' },
  'invalid-transition': { status: 409, title: 'Not allowed in the current state' },
  'coordination-unavailable': { status: 503, title: 'A coordinating object could not be reached' },
  'private-payloads-unavailable': {
    status: 503,
    title: 'Private payloads are misconfigured: the Wire cannot be encrypted',
  },
  internal: { status: 500, title: 'Internal error' },
};

let all: Record<string, ProblemMeta> | null = null;

/** Every problem code, the kernel's and every module's, with its status and title. */
export function problemTable(): Readonly<Record<string, ProblemMeta>> {
  all ??= { ...CORE_PROBLEMS, ...REGISTRY.problems };
  return all;
}

/** Status and title of a problem code, if there is one. */
export function problemMeta(code: string): ProblemMeta | undefined {
  const table = problemTable();
  return Object.hasOwn(table, code) ? table[code] : undefined;
}

export function problemType(code: string): string {
  return `/problems/${code}`;
}

export function problemBody(failure: Pick<Failure, 'code' | 'detail' | 'errors' | 'extra'>) {
  const meta = problemMeta(failure.code) ?? { status: 500, title: 'Internal error' };
  return {
    type: problemType(failure.code),
    title: meta.title,
    status: meta.status,
    detail: failure.detail,
    ...(failure.errors ? { errors: failure.errors } : {}),
    ...failure.extra,
  };
}

export function problem(
  c: Context,
  failure: Pick<Failure, 'code' | 'detail' | 'errors' | 'extra'>,
  headers: Record<string, string> = {},
): Response {
  const body = problemBody(failure);
  // A rate refusal says when to come back, in the header clients honour.
  const retry = failure.extra?.retry_after_seconds;
  const more: Record<string, string> =
    typeof retry === 'number' ? { 'Retry-After': String(retry) } : {};
  return c.body(JSON.stringify(body), body.status as ContentfulStatusCode, {
    'Content-Type': 'application/problem+json',
    ...more,
    ...headers,
  });
}
