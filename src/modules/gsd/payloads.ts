import * as z from 'zod';
import { fileSurface } from './file-surface';
import { DEFAULT_HANDLERS } from './handlers';

/**
 * Seed 004's known events, checked field by field (camelCase, as the seed
 * writes them). Objects stay open: a field the seed does not name travels
 * untouched. Types are checked; what the coordinator needs to act on an event
 * (a plan, a path) is required. Keys are the colon types.
 */

const Text = z.string().min(1).max(1024);
const Plan = z
  .string({ error: 'plan must be a string such as "01-02"' })
  .min(1, 'plan must not be empty')
  .max(200);
const TaskNumber = z.union([z.int().min(0), z.string().min(1).max(200)], {
  error: 'task must be a task number (or a task name)',
});
const Path = z
  .string({ error: 'path must be a string' })
  .min(1, 'path must not be empty')
  .max(1024);
/** A path `file:claimed` can hold: one the surface-claim gate can name literally (`file-surface.ts`). */
const ClaimedPath = Path.superRefine((path, ctx) => {
  const surface = fileSurface(path);
  if (!surface.ok) ctx.addIssue({ code: 'custom', message: surface.reason });
});
const Names = z.array(Text, { error: 'must be an array of strings' }).max(500);

/**
 * A handler's name after `builtin:` / `custom:`; a project webhook endpoint is
 * registered under the same name (`custom:slack-notify` → endpoint `slack-notify`).
 */
export const HANDLER_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const NAME_RULE = '1-64 lower-case letters, digits, . _ - (starting with a letter or digit)';

/** A project webhook endpoint's id: the `<name>` of the `custom:<name>` handler it serves. */
export const EndpointName = z
  .string({ error: 'id is required: the name its custom:<name> handler uses' })
  .regex(HANDLER_NAME, `id must be ${NAME_RULE}, as custom:<name> handlers name it`);

/** `builtin:<name>` or `custom:<name>`, the seed's handler names. */
export const HandlerName = z
  .string()
  .regex(
    /^(builtin|custom):[a-z0-9][a-z0-9._-]{0,63}$/,
    `a handler is "builtin:<name>" or "custom:<name>" (<name>: ${NAME_RULE})`,
  );

/** The event types each built-in acts on: its rows of the seed's table. */
function builtinTypes(): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const [type, handlers] of Object.entries(DEFAULT_HANDLERS))
    for (const h of handlers) types.set(h, [...(types.get(h) ?? []), type]);
  return types;
}

/**
 * The seed's `event_handlers` map: colon event type → handler names, in
 * order. A `builtin:` handler must be one of the seed's, mapped to a type it
 * acts on (its row of the table): anything else would be accepted and do
 * nothing, so it is refused, naming the handler.
 */
export const EventHandlers = z
  .record(
    z.string().regex(/^[^\s:]+(:[^\s:]+)+$/, 'keys are colon event types such as "task:completed"'),
    z.array(HandlerName).max(16),
  )
  .superRefine((map, ctx) => {
    const builtins = builtinTypes();
    for (const [type, handlers] of Object.entries(map)) {
      for (const [i, handler] of handlers.entries()) {
        if (!handler.startsWith('builtin:')) continue;
        const types = builtins.get(handler);
        if (types === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [type, i],
            message: `"${handler}" is not a built-in handler; the built-ins are ${[...builtins.keys()].join(', ')}`,
          });
        } else if (!types.includes(type)) {
          ctx.addIssue({
            code: 'custom',
            path: [type, i],
            message: `"${handler}" acts on ${types.join(', ')} only (the seed's built-in table), not on "${type}": name a custom: handler for it`,
          });
        }
      }
    }
  });

/** `24h`, `7d`, `90m`: how long the events view shows an event. */
export const Retention = z
  .string()
  .regex(
    /^[1-9][0-9]{0,5}[mhd]$/,
    'retentionPolicy must be a duration such as "24h", "7d" or "90m"',
  );

export const GSD_PAYLOADS = {
  'task:started': z.looseObject({ plan: Plan, task: TaskNumber, taskName: Text.optional() }),
  'task:completed': z.looseObject({
    plan: Plan,
    task: TaskNumber,
    taskName: Text.optional(),
    commit: Text.optional(),
    duration: Text.optional(),
  }),
  'task:failed': z.looseObject({ plan: Plan, task: TaskNumber, error: Text }),
  'artifact:created': z.looseObject({
    path: Path,
    provides: Names.optional(),
    createdBy: Plan.optional(),
  }),
  'artifact:modified': z.looseObject({
    path: Path,
    modifiedBy: Plan.optional(),
    changes: Names.optional(),
    provides: Names.optional(),
  }),
  'file:claimed': z.looseObject({ path: ClaimedPath, plan: Plan.optional() }),
  'file:released': z.looseObject({ path: Path }),
  'dependency:satisfied': z.looseObject({ artifact: Path, requiredBy: z.array(Plan).min(1) }),
  'decision:made': z.looseObject({
    id: Text.optional(),
    decision: Text,
    rationale: Text.optional(),
    madeBy: Plan.optional(),
    affects: Names.optional(),
  }),
  'checkpoint:reached': z.looseObject({
    plan: Plan,
    task: TaskNumber,
    checkpointType: Text.optional(),
    awaiting: Text.optional(),
  }),
  // Wirestream's additions, in the seed's style (README, "GSD agent events").
  'checkpoint:approved': z.looseObject({ plan: Plan, task: TaskNumber, comment: Text.optional() }),
  'checkpoint:rejected': z.looseObject({ plan: Plan, task: TaskNumber, comment: Text.optional() }),
  'plan:waiting': z.looseObject({
    plan: Plan,
    waitsOn: z
      .array(Path, { error: 'waitsOn must be an array of artifact paths or provided names' })
      .min(1, 'waitsOn must name at least one artifact path or provided name')
      .max(100),
  }),
  'config:updated': z.looseObject({
    event_handlers: EventHandlers.optional(),
    retentionPolicy: Retention.optional(),
  }),
} as const;

export type GsdKnownType = keyof typeof GSD_PAYLOADS;
