import type { TypeSpec } from '../../kernel/module';
import { wireTypeOf } from '../../protocol';
import { GSD_PAYLOADS, type GsdKnownType } from './payloads';

/** Wire types of GSD events: `task:started` → `gsd.task.started` (the dialect's mapping). */
export const GSD_PREFIX = 'gsd';

/** The stream kind of a project's event log: `gsd:<project_id>`. */
export const GSD_KIND = 'gsd';

/** The wire-id prefix of the coordinator's own `dependency:satisfied` Wires. */
export const DEPENDENCY_ID = 'gsddep';

/** The Wire type of a colon type (`task:started` → `gsd.task.started`). */
export function wireType(colon: string): string {
  const type = wireTypeOf(GSD_PREFIX, colon, ':');
  if (type === null) throw new Error(`${colon} has no Wire type`);
  return type;
}

/** Types only coordinator (or admin) identities may post by hand. */
const ORCHESTRATION: readonly GsdKnownType[] = ['dependency:satisfied', 'config:updated'];

/**
 * Seed 004's catalogue: each known event once, with its payload schema (so a
 * wrong field type is a 422 naming the event's own field); every other colon
 * event is accepted with any object body (`gsd.` prefix, no schema).
 */
export const GSD_TYPES: Record<string, TypeSpec> = Object.fromEntries(
  (Object.keys(GSD_PAYLOADS) as GsdKnownType[]).map((colon) => [
    wireType(colon),
    {
      payload: GSD_PAYLOADS[colon],
      ...(ORCHESTRATION.includes(colon) ? { orchestration: true } : {}),
    },
  ]),
);

export const GSD_PREFIXES: Record<string, TypeSpec> = { [`${GSD_PREFIX}.`]: {} };
