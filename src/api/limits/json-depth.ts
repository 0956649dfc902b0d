import { type Failure, fail } from '../../protocol';

/** Deepest nesting a body may have; Wires are flat records, 32 is generous. */
export const MAX_JSON_DEPTH = 32;

/**
 * A 400 naming the first path that nests deeper than `max`, else null.
 * Iterative, so a hostile body cannot exhaust the stack while being checked.
 */
export function jsonDepthProblem(value: unknown, max = MAX_JSON_DEPTH): Failure | null {
  const stack: { node: unknown; path: string; depth: number }[] = [
    { node: value, path: '(body)', depth: 0 },
  ];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop() as { node: unknown; path: string; depth: number };
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > max) {
      return fail('json-too-deep', `${path} nests deeper than ${max} levels`, {
        errors: [{ path, message: `nesting deeper than ${max} levels` }],
        extra: { max_depth: max },
      });
    }
    const entries = Array.isArray(node)
      ? node.map((v, i) => [String(i), v] as const)
      : Object.entries(node);
    for (const [key, child] of entries) {
      stack.push({
        node: child,
        path: path === '(body)' ? key : `${path}.${key}`,
        depth: depth + 1,
      });
    }
  }
  return null;
}
