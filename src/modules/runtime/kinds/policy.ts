import { hasOwnKey, ownValue } from '../../../kernel/records';
import type { FieldIssue } from '../../../protocol';
import type { RouteAction, RoutePolicy, RuleMatch } from '../payloads';

/** What a rule can look at: the message's text, role and metadata. */
export interface RoutingContext {
  text: string;
  role: string;
  metadata: Record<string, string | number | boolean>;
}

export interface Decision {
  /** The id of the rule that fired, `default`, or `explicit-route` (a client's route). */
  rule: string;
  /** The position of the rule that fired in `policy.rules`; absent otherwise. */
  index?: number;
  route: RouteAction;
}

/**
 * Rule ids a policy may not use: decisions name the default `default` and a
 * client's explicit route `explicit-route`, so a rule with either id, or two
 * rules with one id, would make a decision's `rule` name two things.
 */
export const RESERVED_RULE_IDS: readonly string[] = ['default', 'explicit-route'];

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
  for (const [index, rule] of policy.rules.entries()) {
    if (matches(rule.when, ctx)) return { rule: rule.id, index, route: rule.route };
  }
  return { rule: 'default', route: policy.default };
}

/** Where a policy's rule ids repeat or are reserved: one issue per offending rule. */
export function ruleIdIssues(policy: RoutePolicy): FieldIssue[] {
  const first = new Map<string, number>();
  const issues: FieldIssue[] = [];
  for (const [i, rule] of policy.rules.entries()) {
    const path = `payload.policy.rules.${i}.id`;
    const seen = first.get(rule.id);
    if (RESERVED_RULE_IDS.includes(rule.id))
      issues.push({
        path,
        message: `"${rule.id}" is reserved: decisions use it for the ${rule.id === 'default' ? "policy's default" : 'explicit route'}`,
      });
    else if (seen !== undefined)
      issues.push({
        path,
        message: `"${rule.id}" is already the id of rule ${seen}: a decision names its rule by id`,
      });
    else first.set(rule.id, i);
  }
  return issues;
}
