import { type Failure, fail } from '../../protocol';

/** Deepest nesting a body may have; Wires are flat records, 32 is generous. */
export const MAX_JSON_DEPTH = 32;

/**
 * A 400 naming the first path that nests deeper than `max`, else null.
 * Iterative, so a hostile body cannot exhaust the stack while being checked.
 * The common case (within the limit) walks the values without building
 * paths; only a body that fails is walked again to name the path.
 */
export function jsonDepthProblem(value: unknown, max = MAX_JSON_DEPTH): Failure | null {
  return withinDepth(value, max) ? null : deepPathProblem(value, max);
}

/** True when no container in `value` sits deeper than `max`. */
function withinDepth(value: unknown, max: number): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > max) return false;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return true;
}

/** The failure for a body known to be too deep, naming the first such path. */
function deepPathProblem(value: unknown, max: number): Failure | null {
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
