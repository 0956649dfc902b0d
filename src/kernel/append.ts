import {
  type Draft,
  type Failure,
  fail,
  parseAppend,
  type Result,
  referenceProblems,
} from '../protocol';
import type { AppendResult } from './kind';
import type { Registry } from './registry';

/**
 * The one append path. REST, HCS-first ingest and every later entry point
 * (MCP tools, dialect endpoints) hand a decoded body to `appendBody`, which
 * parses it, checks it against the modules' catalogues, runs the entry
 * point's guards (rights, then rate) and commits it to its stream. It answers
 * a value: only `api/` turns a Failure into problem+json (MCP into a tool error).
 */
export interface AppendGuards {
  /** Who may post this (sender binding, scopes, orchestration rights, secrets). */
  rights(draft: Draft): Failure | null;
  /** The sender's rate, taken last: a refused Wire spends none of it. */
  rate?(draft: Draft): Promise<Failure | null>;
}

export interface AppendCall {
  body: unknown;
  streamId: string;
  guards: AppendGuards;
  /** Stores the Wire (normally `StreamObject.append`). */
  commit(draft: Draft, expectedSeq: number | undefined): Promise<AppendResult>;
}

/** Parses and checks a body without storing it: the Draft, or why not. */
export function draftOf(
  body: unknown,
  streamId: string,
  registry: Registry,
): Result<{ draft: Draft; expectedSeq: number | undefined }> {
  const parsed = parseAppend(body, streamId);
  if (!parsed.ok) return parsed;
  const problem = catalogueProblem(parsed.draft, registry);
  if (problem) return problem;
  return { ok: true, draft: parsed.draft, expectedSeq: parsed.expectedSeq };
}

export async function appendBody(call: AppendCall, registry: Registry): Promise<AppendResult> {
  const drafted = draftOf(call.body, call.streamId, registry);
  if (!drafted.ok) return drafted;
  const denied = call.guards.rights(drafted.draft);
  if (denied) return denied;
  const limited = (await call.guards.rate?.(drafted.draft)) ?? null;
  if (limited) return limited;
  return call.commit(drafted.draft, drafted.expectedSeq);
}

/**
 * What the catalogues say of a parsed Draft: its payload against its type's
 * schema (a type no module declares travels as any JSON object that keeps
 * artifact references hashed), and no wire_id a module derives for itself.
 */
export function catalogueProblem(draft: Draft, registry: Registry): Failure | null {
  const spec = registry.typeSpec(draft.type);
  if (spec?.payload) {
    const parsed = spec.payload.safeParse(draft.payload);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((issue) => ({
        path: ['payload', ...issue.path].map(String).join('.'),
        message: issue.message,
      }));
      return fail('invalid-wire', errors.map((e) => `${e.path}: ${e.message}`).join('; '), {
        errors,
      });
    }
  } else {
    const problem = referenceProblems(draft.payload);
    if (problem !== null) {
      return fail('invalid-wire', `payload.sha256: ${problem}`, {
        errors: [{ path: 'payload.sha256', message: problem }],
      });
    }
  }
  const colon = draft.wire_id.indexOf(':');
  if (colon > 0 && registry.derivedIds.includes(draft.wire_id.slice(0, colon))) {
    const message = `wire_id "${draft.wire_id}" starts with "${draft.wire_id.slice(0, colon)}:", which is reserved for Wires the coordinator derives`;
    return fail('invalid-wire', `wire_id: ${message}`, {
      errors: [{ path: 'wire_id', message }],
    });
  }
  return null;
}
