import type { ProblemSpec } from '../../kernel/module';

/** The failure codes seed 002's run streams answer before storing anything. */
export const WRITER_PROBLEMS = {
  'run-exists': { status: 409, title: 'A run with this run_id exists already' },
  'run-not-found': { status: 404, title: 'No run has this run_id' },
  'not-run-party': { status: 403, title: 'The sender holds no capability in this run' },
  'revision-not-found': { status: 404, title: 'The run has no such revision' },
} as const satisfies Record<string, ProblemSpec>;
