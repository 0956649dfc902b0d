import * as z from 'zod';
import type { FieldIssue } from './failure';

/**
 * What every payload of every protocol shares. The payload schemas of each
 * Wire type live with the protocol module that owns the type (its type
 * catalogue); a type no module knows still travels, as any JSON object.
 */

export const Sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex characters');

/** Artifacts travel by reference (seed 000, "Large Data And Artifacts"). */
const INLINE_CONTENT_KEYS = ['content', 'contents', 'data', 'body', 'blob', 'base64', 'bytes'];

/** A payload schema that refuses inline artifact content. */
export function byReference<T extends z.ZodObject>(schema: T) {
  return schema.superRefine((value, ctx) => {
    for (const key of INLINE_CONTENT_KEYS) {
      if (key in value) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `artifacts travel by reference (artifact_ref + sha256), never inline: remove "${key}"`,
        });
      }
    }
  });
}

/** Any payload: a JSON object. */
export const AnyPayload = z.record(z.string(), z.json());

/** Any payload that carries an artifact reference must carry its hash too. */
export function referenceProblems(payload: Record<string, unknown>): string | null {
  if ('artifact_ref' in payload && !Sha256.safeParse(payload.sha256).success) {
    return 'a payload with artifact_ref must carry sha256 (64 lowercase hex characters)';
  }
  return null;
}

/**
 * The by-reference rule for every type: a payload that names an artifact
 * (`artifact_ref`) carries its `sha256` and none of its content inline.
 * (`byReference` schemas refuse inline content even without a reference.)
 */
export function referenceIssues(payload: Record<string, unknown>): FieldIssue[] {
  if (!('artifact_ref' in payload)) return [];
  const issues: FieldIssue[] = [];
  const hash = referenceProblems(payload);
  if (hash) issues.push({ path: 'payload.sha256', message: hash });
  for (const key of INLINE_CONTENT_KEYS) {
    if (key in payload) {
      issues.push({
        path: `payload.${key}`,
        message: `artifacts travel by reference (artifact_ref + sha256), never inline: remove "${key}"`,
      });
    }
  }
  return issues;
}
