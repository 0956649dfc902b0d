import { applyPatch, createPatch, type Operation } from 'rfc6902';
import * as z from 'zod';
import { type Keyed, ownValue, setOwn, withOwn } from '../../kernel/records';
import type { PatchOp } from './payloads';
import { SectionState } from './payloads';

/**
 * The run document's JSON form and the pure changes on it. A section is
 * `{ title, state, body, notes }` (body and notes are markdown); patch ops
 * (RFC 6902, applied by the `rfc6902` package) address one section, so
 * `/body` is that section's body. A change that does not apply, or leaves
 * the section malformed or too large, answers a reason and changes nothing.
 */
export interface Section {
  title: string;
  state: string;
  body: string;
  notes: string[];
  [member: string]: unknown;
}

export interface RunDocument {
  title: string;
  order: string[];
  /** Keyed by section id, a name users choose: read and write through `kernel/records`. */
  sections: Keyed<Section>;
}

/** A change to one section: what the three section messages carry. */
export type SectionChange =
  | { type: 'writer.apply_patch'; section: string; ops: PatchOp[] }
  | { type: 'writer.append_note'; section: string; markdown: string }
  | { type: 'writer.mark_section_state'; section: string; state: string };

const SectionShape = z.looseObject({
  title: z.string({ error: 'title must stay a string' }),
  state: SectionState,
  body: z.string({ error: 'body must stay a string' }),
  notes: z.array(z.string(), { error: 'notes must stay a list of strings' }),
});

/** A section's JSON may not grow past this (the decider's state holds canon). */
export const MAX_SECTION_BYTES = 65_536;

export function initialDocument(created: {
  title?: string | undefined;
  sections: {
    id: string;
    title?: string | undefined;
    body?: string | undefined;
    state?: string | undefined;
  }[];
}): RunDocument {
  const sections: Keyed<Section> = {};
  for (const s of created.sections) {
    setOwn(sections, s.id, {
      title: s.title ?? s.id,
      state: s.state ?? 'draft',
      body: s.body ?? '',
      notes: [],
    });
  }
  return { title: created.title ?? '', order: created.sections.map((s) => s.id), sections };
}

function opReason(index: number, op: PatchOp, error: Error): string {
  const where = `op ${index} (${op.op} ${op.path})`;
  switch (error.name) {
    case 'MissingError':
      return `${where}: no value at ${'from' in op ? `${op.from} or ${op.path}` : op.path} in the section`;
    case 'TestError':
      return `${where}: test failed, the section holds another value there`;
    default:
      return `${where}: not a valid operation on the section`;
  }
}

/** Why a message naming `section` does not apply: the run has no such section. */
export function missingSection(doc: RunDocument, section: string): string {
  return `section "${section}" does not exist; the run's sections are ${doc.order.join(', ')}`;
}

/** Applies one op to `section` in place; why it does not apply, or null. */
function applyOp(section: Section, index: number, op: PatchOp): string | null {
  try {
    const [error = null] = applyPatch(section, [op as Operation]);
    return error === null ? null : opReason(index, op, error);
  } catch {
    // rfc6902 assigns into whatever the path's parent holds: under a string
    // (a section's `body`, `title`, a note) strict mode throws.
    const parent = op.path.slice(0, op.path.lastIndexOf('/')) || '(the section)';
    return `op ${index} (${op.op} ${op.path}): ${parent} holds no object or array to change a member of`;
  }
}

/** The section after `change`, or why it does not apply. Never mutates `doc`. */
export function applyChange(
  doc: RunDocument,
  change: SectionChange,
): { ok: true; doc: RunDocument } | { ok: false; reason: string } {
  const current = ownValue(doc.sections, change.section);
  if (!current) {
    return {
      ok: false,
      reason: missingSection(doc, change.section),
    };
  }
  let next: Section = structuredClone(current);
  if (change.type === 'writer.apply_patch') {
    for (const [i, op] of change.ops.entries()) {
      const failed = applyOp(next, i, op);
      if (failed !== null) return { ok: false, reason: failed };
    }
  } else if (change.type === 'writer.append_note') {
    next = { ...next, notes: [...next.notes, change.markdown] };
  } else {
    next = { ...next, state: change.state };
  }
  const shape = SectionShape.safeParse(next);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    return {
      ok: false,
      reason: `the change leaves section "${change.section}" malformed: ${issue?.path.join('.') || '(section)'}: ${issue?.message}`,
    };
  }
  if (JSON.stringify(next).length > MAX_SECTION_BYTES) {
    return {
      ok: false,
      reason: `the change makes section "${change.section}" larger than ${MAX_SECTION_BYTES} bytes of JSON`,
    };
  }
  return { ok: true, doc: { ...doc, sections: withOwn(doc.sections, change.section, next) } };
}

/** RFC 6902 ops that turn `from` into `to` (paths over the whole document). */
export function documentDiff(from: RunDocument, to: RunDocument): Operation[] {
  return createPatch(from, to);
}
