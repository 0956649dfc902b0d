import * as z from 'zod';

/** Dotted lowercase event names: `review.concern`, `project.created`. */
export const WIRE_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export const WireType = z
  .string()
  .max(100, 'type must be at most 100 characters')
  .regex(
    WIRE_TYPE_PATTERN,
    'type must be dotted lowercase words, e.g. "review.concern" (letters, digits, _; at least one dot)',
  );
