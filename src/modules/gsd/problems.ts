import type { ProblemSpec } from '../../kernel/module';

/** The failure codes seed 004's decider returns, with their problem+json status. */
export const GSD_PROBLEMS = {
  'file-claimed': { status: 409, title: 'Another agent holds a claim on this file' },
  'file-not-held': { status: 409, title: 'The file is not claimed by this agent' },
  'checkpoint-not-awaiting': { status: 409, title: 'No checkpoint awaits an answer there' },
  'not-a-gsd-event': { status: 422, title: 'A GSD project stream holds GSD events only' },
} as const satisfies Record<string, ProblemSpec>;
