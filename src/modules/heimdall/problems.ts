import type { ProblemSpec } from '../../kernel/module';

/** The failure codes of seed 001's deciders and routes, with their problem+json status. */
export const HEIMDALL_PROBLEMS = {
  'surface-collision': {
    status: 409,
    title: 'The surfaces overlap a live claim of another identity',
  },
  'invalid-glob': { status: 422, title: 'A surface glob uses syntax the gate does not support' },
  'claim-not-found': { status: 404, title: 'No live claim has this id' },
  'not-claim-holder': { status: 403, title: 'Only the identity holding the claim may do this' },
  'invalid-workspace': { status: 400, title: 'Invalid workspace id' },
  'symbol-conflict': { status: 409, title: 'The symbol already names another value' },
  'unknown-reference': { status: 422, title: 'A reference names nothing in the workspace' },
  'capsule-too-long': { status: 422, title: 'A capsule has more than 10 lines' },
  'capsule-cycle': { status: 422, title: 'The capsule dependencies would form a cycle' },
  'invalid-message': { status: 422, title: 'The message does not match the typed-message schema' },
  'message-escalated': {
    status: 422,
    title: 'The message was invalid twice: it has been escalated',
  },
} as const satisfies Record<string, ProblemSpec>;
