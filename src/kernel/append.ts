import type { Env } from '../env';
import { type Draft, type Failure, parseAppend, type Result } from '../protocol';
import type { AppendOptions } from '../protocol/dialects/parse-append';
import type { AppendResult } from './kind';
import type { Registry } from './registry';
import type { SignedDraft } from './signatures';

/**
 * The one append path. REST, HCS-first ingest and every later entry point
 * (MCP tools, dialect endpoints) hand a decoded body to `appendBody`, which
 * parses it in its dialect (`parseAppend`, with the modules' catalogues:
 * payload schemas and reserved wire ids), runs the entry
 * point's guards (rights, the type's admission, the signature, then rate) and commits it to its stream. It answers
 * a value: only `api/` turns a Failure into problem+json (MCP into a tool error).
 */
export interface AppendGuards {
  /** Who may post this (sender binding, scopes, orchestration rights); secrets are refused by the parse. */
  rights(draft: Draft): Failure | null;
  /**
   * The sender's signature, required once it has registered a key: every
   * entry point passes `signedDraft` (`signatures.ts`), so no protocol's
   * Wires skip it. Answers the Wire to store: `draft`, or `draft` signed by
   * a signature the request offered for it (a Wire the server built), or why not.
   */
  signature(draft: Draft): Promise<Result<SignedDraft>>;
  /** The sender's rate, taken last: a refused Wire spends none of it. */
  rate?(draft: Draft): Promise<Failure | null>;
}

export interface AppendCall {
  body: unknown;
  streamId: string;
  /** The bindings a type's `admit` reads other streams through. */
  env: Env;
  guards: AppendGuards;
  /** The body's dialect (a module's own, on its endpoints) and the authenticated sender. */
  options?: Pick<AppendOptions, 'dialect' | 'sender'>;
  /** Stores the Wire (normally `StreamObject.append`). */
  commit(draft: Draft, expectedSeq: number | undefined): Promise<AppendResult>;
  /**
   * The stored Wire's replay if the stream holds this wire_id with this
   * content (normally `StreamObject.replayOf`), asked only when admission or
   * the signature guard refuses: idempotency outlives the sender's keys and
   * the places a Wire needed, so a retry of a Wire stored before its key was
   * rotated or its channel closed (its answer lost) hears its receipt, not a
   * 403 or 404. Entry points without it answer the refusal.
   */
  replayOf?(draft: Draft): Promise<AppendResult | null>;
}

/** Parses and checks a body without storing it: the Draft, or why not. */
export function draftOf(
  body: unknown,
  streamId: string,
  registry: Registry,
  options: Pick<AppendOptions, 'dialect' | 'sender'> = {},
): Result<{ draft: Draft; expectedSeq: number | undefined }> {
  const parsed = parseAppend(body, streamId, {
    ...options,
    payloads: (type) => registry.typeSpec(type)?.payload,
    reserved: registry.derivedIds,
  });
  if (!parsed.ok) return parsed;
  return { ok: true, draft: parsed.draft, expectedSeq: parsed.expectedSeq };
}

export async function appendBody(call: AppendCall, registry: Registry): Promise<AppendResult> {
  const drafted = draftOf(call.body, call.streamId, registry, call.options);
  if (!drafted.ok) return drafted;
  const denied = call.guards.rights(drafted.draft);
  if (denied) return denied;
  const refused = await admission(call.env, drafted.draft, registry);
  if (refused) return (await call.replayOf?.(drafted.draft)) ?? refused;
  const signed = await call.guards.signature(drafted.draft);
  if (!signed.ok) return (await call.replayOf?.(drafted.draft)) ?? signed;
  const limited = (await call.guards.rate?.(signed.draft)) ?? null;
  if (limited) return limited;
  const result = await call.commit(signed.draft, drafted.expectedSeq);
  // A key registration: answered once no isolate can still take its sender for keyless.
  if (result.ok && !result.replay && signed.holdMs)
    await new Promise((resolve) => setTimeout(resolve, signed.holdMs));
  return result;
}

/** What the Wire's type needs of other streams (`TypeSpec.admit`): why not, or null. */
export function admission(env: Env, draft: Draft, registry: Registry): Promise<Failure | null> {
  return registry.typeSpec(draft.type)?.admit?.(env, draft) ?? Promise.resolve(null);
}
