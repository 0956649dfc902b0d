import type { Context } from 'hono';
import * as z from 'zod';
import { type FieldIssue, fail, type Result } from '../protocol';
import type { AppEnv } from './app-env';

/**
 * The one query-string parser every route uses. A route declares its
 * parameters as a zod shape; the same shape validates the request and, at
 * build time, becomes the route's `parameters` in the OpenAPI document
 * (src/api/openapi/). A bad value is a 400 `invalid-query` naming each field.
 */

/** A query shape: what `parseQuery` takes and the document describes. */
export type QueryShape = z.ZodRawShape;

const DIGITS = /^\d{1,16}$/;

const toInt = (v: unknown) =>
  v === '' ? undefined : typeof v === 'string' && DIGITS.test(v) ? Number(v) : v;

/**
 * An integer from `min` to `max`: digits only (no sign, exponent or spaces).
 * A bad value reads "must be an integer from 0 to 1000, got "x"", or with
 * `bounds` one message per bound ("must be at least 1").
 */
function int(min: number, max: number, style: 'range' | 'bounds') {
  if (style === 'bounds') {
    return z
      .int({ error: 'must be an integer' })
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`);
  }
  const error = (issue: { input?: unknown }) =>
    `must be an integer from ${min} to ${max}, got "${String(issue.input)}"`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}

/** An integer parameter; absent or empty means `fallback`. */
export function intQuery(
  min: number,
  max: number,
  fallback: number,
  style: 'range' | 'bounds' = 'range',
) {
  return z.preprocess(toInt, int(min, max, style).default(fallback));
}

/** An integer parameter that may be left out (absent or empty). */
export function optionalIntQuery(min: number, max: number) {
  return z.preprocess(toInt, int(min, max, 'range').optional());
}

/** A stream position: `stream_seq` of the last Wire the caller holds (0: none). */
export const AfterSeq = intQuery(0, Number.MAX_SAFE_INTEGER, 0).meta({
  description:
    '`stream_seq` of the last Wire already held; the page starts after it (0: from the start)',
});

/** `limit`: how many items a page may hold, 1 to `max`. */
export function limitQuery(max: number, fallback = 100, style: 'range' | 'bounds' = 'range') {
  return intQuery(1, max, fallback, style).meta({
    description: `Most items in the page (1-${max})`,
  });
}

export interface ParseOptions {
  /**
   * Parameters the shape does not name are always refused (a misspelt filter
   * must not silently widen or change the answer). `strict: false` only lets
   * through the credential `?ticket=` (read by authentication, on WebSocket
   * routes), which the shape does not describe.
   */
  strict?: boolean;
}

/** Read by `auth/authenticate.ts`, not by the route. */
const CREDENTIAL_PARAMS = new Set(['ticket']);

/** Object schemas built once per shape: routes parse on every request. */
const strictSchemas = new WeakMap<QueryShape, z.ZodObject>();

function objectOf(shape: QueryShape): z.ZodObject {
  let schema = strictSchemas.get(shape);
  if (!schema) {
    schema = z.strictObject(shape);
    strictSchemas.set(shape, schema);
  }
  return schema;
}

export function parseQuery<S extends QueryShape>(
  c: Context<AppEnv>,
  shape: S,
  options: ParseOptions = {},
): Result<{ query: z.infer<z.ZodObject<S>> }> {
  const all = c.req.queries();
  const repeated = Object.entries(all).filter(([, values]) => values.length > 1);
  if (repeated.length > 0) {
    const errors = repeated.map(([name, values]) => ({
      path: name,
      message: `is given ${values.length} times; give each parameter once`,
    }));
    return fail('invalid-query', errors.map((e) => `${e.path} ${e.message}`).join('; '), {
      errors,
    });
  }
  const query = c.req.query();
  if (options.strict === false) {
    for (const name of CREDENTIAL_PARAMS) if (!(name in shape)) delete query[name];
  }
  const parsed = objectOf(shape).safeParse(query);
  if (parsed.success) return { ok: true, query: parsed.data as z.infer<z.ZodObject<S>> };
  const errors: FieldIssue[] = parsed.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? {
          path: issue.keys.join(', '),
          message: `is not a parameter of this endpoint (it takes ${Object.keys(shape).join(', ')})`,
        }
      : { path: issue.path.map(String).join('.'), message: issue.message },
  );
  return fail('invalid-query', errors.map((e) => `${e.path} ${e.message}`).join('; '), {
    errors,
  });
}
