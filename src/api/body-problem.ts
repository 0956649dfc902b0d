import type * as z from 'zod';
import { type Failure, type FieldIssue, fail } from '../protocol';

/** A request body that failed its zod schema, as a problem naming each field. */
export function bodyProblem(
  error: z.ZodError,
  code: 'invalid-body' | 'invalid-query' = 'invalid-body',
): Failure {
  const errors: FieldIssue[] = error.issues.map((i) => ({
    path: i.path.map(String).join('.') || '(body)',
    message: i.message,
  }));
  return fail(code, errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}
