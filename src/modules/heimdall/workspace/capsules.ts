import { ownValue } from '../../../kernel/records';

/**
 * Mechanism 3, context capsules: at most 10 lines (what, where, decision,
 * gotcha, depends), hydrated as exactly the transitive `depends` closure of
 * the capsules asked for, dependencies first.
 */

export const MAX_CAPSULE_LINES = 10;

export interface Capsule {
  id: string;
  what: string;
  where: string | null;
  decision: string | null;
  gotcha: string | null;
  depends: string[];
  by: string;
  at: string;
}

export interface CapsuleInput {
  what: string;
  where?: string | null | undefined;
  decision?: string | null | undefined;
  gotcha?: string | null | undefined;
  depends?: string[] | undefined;
}

/** The fields of a capsule file, in the order it writes them. */
export const CAPSULE_FIELDS = ['what', 'where', 'decision', 'gotcha', 'depends'] as const;

/** A capsule file line that opens a field (`what: …`); any other line continues the field above. */
export const FIELD_LINE = /^(what|where|decision|gotcha|depends): ?([^\n]*)$/;

/**
 * Whether a field value would read back as another value: a line after its
 * first that starts like a field (`where: X`) opens that field when the file
 * is read again, so such a value has no unambiguous file form.
 */
export function opensAField(value: string): boolean {
  return value
    .split(/\r?\n/)
    .slice(1)
    .some((line) => FIELD_LINE.test(line));
}

/**
 * The capsule as its `capsules/{id}.md` file reads: one `field: value` per
 * line, a value's further lines written as they are (never starting like a
 * field: see `opensAField`).
 */
export function capsuleLines(c: CapsuleInput): string[] {
  const lines: string[] = [];
  for (const field of ['what', 'where', 'decision', 'gotcha'] as const) {
    const value = c[field];
    if (typeof value === 'string' && value.length > 0) {
      const [first = '', ...rest] = value.split(/\r?\n/);
      lines.push(`${field}: ${first}`, ...rest);
    }
  }
  if (c.depends && c.depends.length > 0) lines.push(`depends: ${c.depends.join(', ')}`);
  return lines;
}

export function capsuleMarkdown(c: CapsuleInput): string {
  return `${capsuleLines(c).join('\n')}\n`;
}

export function capsuleJson(c: Capsule) {
  return {
    id: c.id,
    what: c.what,
    where: c.where,
    decision: c.decision,
    gotcha: c.gotcha,
    depends: c.depends,
    markdown: capsuleMarkdown(c),
  };
}

/**
 * The ids `ids` reach through `depends`, each after its dependencies
 * (depth-first post-order, in the order asked), or the first unknown id.
 */
export function closure(
  capsules: Readonly<Record<string, Pick<Capsule, 'depends'>>>,
  ids: readonly string[],
): { ok: true; ids: string[] } | { ok: false; unknown: string } {
  const out: string[] = [];
  const done = new Set<string>();
  const visit = (id: string): string | null => {
    if (done.has(id)) return null;
    const capsule = ownValue(capsules, id);
    if (!capsule) return id;
    done.add(id);
    for (const dep of capsule.depends) {
      const missing = visit(dep);
      if (missing) return missing;
    }
    out.push(id);
    return null;
  };
  for (const id of ids) {
    const missing = visit(id);
    if (missing) return { ok: false, unknown: missing };
  }
  return { ok: true, ids: out };
}

/** A cycle `id` would close by depending on `depends` (the path, id first), or null. */
export function cycleThrough(
  capsules: Readonly<Record<string, Pick<Capsule, 'depends'>>>,
  id: string,
  depends: readonly string[],
): string[] | null {
  const seen = new Set<string>();
  const walk = (at: string, path: string[]): string[] | null => {
    if (at === id) return [...path, id];
    if (seen.has(at)) return null;
    seen.add(at);
    for (const next of ownValue(capsules, at)?.depends ?? []) {
      const found = walk(next, [...path, at]);
      if (found) return found;
    }
    return null;
  };
  for (const dep of depends) {
    const found = walk(dep, [id]);
    if (found) return found;
  }
  return null;
}
