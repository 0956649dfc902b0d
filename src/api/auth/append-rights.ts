import type { Registry } from '../../kernel/registry';
import { type Draft, type Failure, fail } from '../../protocol';
import { hasScope, isCoordinator, type Principal, type Scope } from './claims';

/**
 * May `principal` append `draft`? Pure: sender binding, then what the type's
 * catalogue entry asks (a scope, a coordinator identity). Secrets are refused
 * earlier, by the append path's parse, for every entry point alike. A kind's
 * own rules (who holds what) are its decider's job.
 */
export function appendRightsProblem(
  principal: Principal,
  draft: Draft,
  registry: Registry,
): Failure | null {
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
  const spec = registry.typeSpec(draft.type);
  if (spec?.scope !== undefined && !hasScope(principal, spec.scope as Scope)) {
    return fail(
      'forbidden',
      `"${draft.type}" needs the "${spec.scope}" scope; the token's scopes are [${principal.scopes.join(', ')}]`,
      { extra: { required_scope: spec.scope } },
    );
  }
  if (spec?.orchestration && !isCoordinator(principal)) {
    return fail(
      'forbidden',
      `only coordinator or admin identities may post "${draft.type}"; "${principal.sub}" is neither`,
      { extra: { wire_type: draft.type } },
    );
  }
  const admin = principal.admin === true || principal.scopes.includes('admin');
  if (spec?.ownerOrAdmin && draft.sender !== draft.stream_id && !admin) {
    return fail(
      'forbidden',
      `only ${draft.stream_id} itself or an admin may post "${draft.type}" there; "${principal.sub}" is neither`,
      { extra: { wire_type: draft.type } },
    );
  }
  return null;
}
