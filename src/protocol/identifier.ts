import type { FieldIssue } from './failure';

/**
 * One rule for every identifier-like field (`correlation_id`, `causation_id`,
 * and any payload member named `id`, `…_id` or `…_ids`): no control
 * characters (C0, DEL, C1), no bidirectional or invisible formatting controls
 * (which let a name display as another, e.g. U+202E), and no lone UTF-16
 * surrogate (canonical JSON cannot represent one). Letters of any script are
 * fine. `type`, `wire_id`, `sender` and stream ids have stricter grammars.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const FORMAT = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const codePoint = (ch: string) =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` may not be an identifier, or null. */
export function identifierProblem(value: string): string | null {
  const control = CONTROL.exec(value);
  if (control) return `holds ${codePoint(control[0])}, a control character`;
  const format = FORMAT.exec(value);
  if (format) {
    return `holds ${codePoint(format[0])}, a bidirectional or invisible formatting character`;
  }
  if (LONE_SURROGATE.test(value)) {
    return 'holds a lone UTF-16 surrogate, which canonical JSON (RFC 8785) cannot represent';
  }
  return null;
}

const ID_KEY = /^id$|_id$|_ids$/;

/** Payload members named like identifiers that break the rule, with their paths. */
export function payloadIdentifierIssues(payload: unknown, path = 'payload'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const check = (value: unknown, at: string) => {
    if (typeof value !== 'string') return;
    const problem = identifierProblem(value);
    if (problem) issues.push({ path: at, message: problem });
  };
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) visit(item, `${at}.${i}`);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const here = `${at}.${key}`;
        if (ID_KEY.test(key)) {
          if (Array.isArray(value)) for (const [i, v] of value.entries()) check(v, `${here}.${i}`);
          else check(value, here);
        }
        visit(value, here);
      }
    }
  };
  visit(payload, path);
  return issues;
}
