import { type Draft, type Failure, fail, findSecrets, isOrchestrationType } from '../../protocol';
import { hasScope, isCoordinator, type Principal } from './claims';

/** Claiming work takes the `claim` scope on top of `append`. */
const CLAIM_TYPES = ['task.claim', 'task.claimed'];

/**
 * May `principal` append `draft`? Pure: sender binding, orchestration rights,
 * then the secret scan. Lease fencing of lifecycle Wires is the stream's job.
 */
export function appendRightsProblem(principal: Principal, draft: Draft): Failure | null {
  if (draft.sender === 'system') {
    return fail('forbidden', 'sender "system" is reserved for the coordinator itself', {
      extra: { sender: draft.sender, token_sub: principal.sub },
    });
  }
  if (draft.sender !== principal.sub) {
    return fail(
      'forbidden',
      `sender "${draft.sender}" does not match the token's subject "${principal.sub}"`,
      { extra: { sender: draft.sender, token_sub: principal.sub } },
    );
  }
  if (CLAIM_TYPES.includes(draft.type) && !hasScope(principal, 'claim')) {
    return fail(
      'forbidden',
      `"${draft.type}" needs the "claim" scope; the token's scopes are [${principal.scopes.join(', ')}]`,
      { extra: { required_scope: 'claim' } },
    );
  }
  if (isOrchestrationType(draft.type) && !isCoordinator(principal)) {
    return fail(
      'forbidden',
      `only coordinator or admin identities may post "${draft.type}"; "${principal.sub}" is neither`,
      { extra: { wire_type: draft.type } },
    );
  }
  const secrets = findSecrets(draft.payload);
  if (secrets.length > 0) {
    return fail(
      'secret-in-payload',
      `refused before storing: ${secrets.map((s) => `${s.path} ${s.message}`).join('; ')}`,
      { errors: secrets },
    );
  }
  return null;
}
