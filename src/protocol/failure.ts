import type { ModuleProblemCode } from '../modules';

/**
 * Expected failures are values, not exceptions. Each has a stable code that
 * `api/problem.ts` maps to an HTTP status and a problem+json `type`.
 */
export type FailureCode =
  | 'malformed-json'
  | 'unsupported-media-type'
  | 'envelope-too-large'
  | 'incomplete-body'
  | 'invalid-wire'
  | 'invalid-stream-id'
  | 'stream-id-mismatch'
  | 'invalid-query'
  | 'invalid-header'
  | 'wire-id-conflict'
  | 'ambiguous-wire-id'
  | 'stale-stream'
  | 'not-found'
  | 'unauthenticated'
  | 'forbidden'
  | 'secret-in-payload'
  | 'json-too-deep'
  | 'rate-limited'
  | 'too-many-subscribers'
  | 'invalid-body'
  | 'rebuild-running'
  // agent-signed Wires (kernel/signatures.ts)
  | 'signature-required'
  | 'signature-invalid'
  // a decider's verdicts that any protocol may return
  | 'invalid-transition'
  | 'coordination-unavailable'
  // a private project's Wire the deployment cannot encrypt (src/private/)
  | 'private-payloads-unavailable'
  // the codes protocol modules declare (their `problems`)
  | ModuleProblemCode;

/** A JSON object inside a problem document (e.g. the Wire a signature refusal asks to be signed). */
export interface ProblemObject {
  readonly [member: string]: unknown;
}

export interface FieldIssue {
  path: string;
  message: string;
}

export interface Failure {
  ok: false;
  code: FailureCode;
  detail: string;
  errors?: FieldIssue[];
  /** Extra members for the problem document (e.g. `current_seq`; `unsigned`, a Wire to sign). */
  extra?: Record<
    string,
    string | number | boolean | null | string[] | ProblemObject | ProblemObject[]
  >;
}

export function fail(
  code: FailureCode,
  detail: string,
  more: Pick<Failure, 'errors' | 'extra'> = {},
): Failure {
  return { ok: false, code, detail, ...more };
}

export type Result<T> = ({ ok: true } & T) | Failure;
