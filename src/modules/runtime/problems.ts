import type { ProblemSpec } from '../../kernel/module';

/** The failure codes Runtime v1 adds, with their problem+json status. */
export const RUNTIME_PROBLEMS = {
  'worker-not-interactive': { status: 409, title: 'The worker runs fire_and_forget' },
  'artifact-digest-mismatch': {
    status: 422,
    title: "The artifact's bytes do not match its sha256",
  },
  'artifact-too-large': { status: 413, title: 'The artifact is larger than the limit' },
  'artifact-exists': { status: 409, title: 'The artifact is already recorded' },
  'artifact-not-stored': {
    status: 409,
    title: "The artifact's stored bytes are not what this Wire records",
  },
} as const satisfies Record<string, ProblemSpec>;
