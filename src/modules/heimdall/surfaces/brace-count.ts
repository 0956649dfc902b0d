import braces from 'braces';

/** A node of `braces.parse`'s syntax tree (the package's types do not declare `parse`). */
interface BraceNode {
  type: string;
  value?: string;
  nodes?: BraceNode[];
  commas?: number;
  ranges?: number;
  invalid?: boolean;
  dollar?: boolean;
}
const parseBraces = (braces as unknown as { parse(input: string): BraceNode }).parse;

/**
 * How many globs `braces` expands `glob` to, counted on its syntax tree
 * (the rules of braces' own `expand`) instead of expanding: twenty `{a,b}`
 * groups are a million strings, fifty never finish. Sequences multiply,
 * comma alternatives add, a range counts its members (within the range
 * limit), and a brace braces leaves as text counts one. A count above `max`
 * stops early; a range holding braces is refused.
 */
function countNode(node: BraceNode, max: number): number | string {
  const nodes = node.nodes ?? [];
  if (node.invalid || node.dollar) return 1;
  if (node.type === 'brace' && nodes.length === 2) return 1; // "{}"
  if ((node.ranges ?? 0) > 0) {
    if (nodes.some((n) => n.nodes)) return 'braces inside a range {a..b} are not supported';
    const text = nodes.map((n) => n.value ?? '').join('');
    return braces(text, { expand: true, rangeLimit: max }).length;
  }
  // Alternatives at commas (a brace's), or one alternative (the root, or a brace kept as text).
  const alternatives: BraceNode[][] = [[]];
  for (const n of nodes) {
    if (n.type === 'comma' && node.type === 'brace') alternatives.push([]);
    else alternatives.at(-1)?.push(n);
  }
  let sum = 0;
  for (const alternative of alternatives) {
    let product = 1;
    for (const n of alternative) {
      if (!n.nodes) continue;
      const count = countNode(n, max);
      if (typeof count === 'string') return count;
      product *= count;
      if (product > max) return max + 1;
    }
    sum += product;
    if (sum > max) return max + 1;
  }
  return sum;
}

/** How many globs `braces` expands `glob` to (at most `max` + 1), or why it cannot count. */
export function braceCount(glob: string, max: number): number | string {
  return countNode(parseBraces(glob), max);
}
