import { hasOwnKey, ownValue } from '../../../kernel/records';
import type { RouteAction, RoutePolicy, RuleMatch } from '../payloads';

/** What a rule can look at: the message's text, role and metadata. */
export interface RoutingContext {
  text: string;
  role: string;
  metadata: Record<string, string | number | boolean>;
}

export interface Decision {
  /** The id of the rule that fired, or `default`. */
  rule: string;
  route: RouteAction;
}

function matches(when: RuleMatch, ctx: RoutingContext): boolean {
  const text = ctx.text.toLowerCase();
  if (when.textIncludes && !when.textIncludes.some((t) => text.includes(t.toLowerCase())))
    return false;
  if (when.textStartsWith && !text.startsWith(when.textStartsWith.toLowerCase())) return false;
  if (when.role !== undefined && when.role !== ctx.role) return false;
  for (const [key, value] of Object.entries(when.metadata ?? {})) {
    if (!hasOwnKey(ctx.metadata, key) || ownValue(ctx.metadata, key) !== value) return false;
  }
  return true;
}

/**
 * FR-3's rule-based routing: the rules in order, the first whose every
 * condition holds fires; none → the policy's default. Pure and total, so the
 * same message and policy always give the same decision.
 */
export function decideRoute(policy: RoutePolicy, ctx: RoutingContext): Decision {
  for (const rule of policy.rules) {
    if (matches(rule.when, ctx)) return { rule: rule.id, route: rule.route };
  }
  return { rule: 'default', route: policy.default };
}
