import * as z from 'zod';

/**
 * Stream ids (seed 000, "Project Coordination With Streams"):
 *   task:<task_id>:attempt:<n>, project:<id>, phase:<id>, agent:<id>,
 *   artifact:<id>, and a generic <kind>:<id> for anything else.
 * Ids are URL-path safe so a stream id can sit in `/v1/streams/{stream_id}`.
 */
const ID = '[A-Za-z0-9][A-Za-z0-9._~-]{0,127}';
const KIND = '[a-z][a-z0-9_-]{0,31}';

const TASK = new RegExp(`^task:(${ID}):attempt:([1-9][0-9]{0,8})$`);
const SINGLE = new RegExp(`^(project|phase|agent|artifact):(${ID})$`);
const GENERIC = new RegExp(`^(${KIND}):(${ID})(:${ID})*$`);

export const STREAM_KINDS = ['task', 'project', 'phase', 'agent', 'artifact'] as const;

export type ParsedStreamId =
  | { kind: 'task'; taskId: string; attempt: number }
  | { kind: 'project' | 'phase' | 'agent' | 'artifact'; id: string }
  | { kind: string; id: string };

/**
 * Ids found valid lately: one append checks its stream id three times (the
 * path middleware, parseAppend, the body's `stream_id`) and the sender's
 * agent stream besides, and clients mostly write to the same streams again,
 * so repeats cost a lookup. Cleared when full, so it never grows unbounded.
 */
const valid = new Set<string>();
const VALID_KEPT = 256;

/** Explains why `value` is not a stream id, or returns null when it is one. */
export function streamIdProblem(value: string): string | null {
  if (valid.has(value)) return null;
  const problem = checkStreamId(value);
  if (problem === null) {
    if (valid.size >= VALID_KEPT) valid.clear();
    valid.add(value);
  }
  return problem;
}

function checkStreamId(value: string): string | null {
  if (value.length > 256) return 'stream_id is longer than 256 characters';
  if (value.startsWith('task:')) {
    return TASK.test(value)
      ? null
      : 'a task stream_id must be task:<task_id>:attempt:<n> with n a positive integer';
  }
  const kind = value.split(':')[0] ?? '';
  if ((STREAM_KINDS as readonly string[]).includes(kind)) {
    return SINGLE.test(value) ? null : `a ${kind} stream_id must be ${kind}:<id>`;
  }
  return GENERIC.test(value)
    ? null
    : 'stream_id must be <kind>:<id> (kind lowercase letters, digits, _ or -; id letters, digits, . _ ~ -)';
}

export function parseStreamId(value: string): ParsedStreamId | null {
  if (streamIdProblem(value) !== null) return null;
  const task = TASK.exec(value);
  if (task) return { kind: 'task', taskId: task[1] ?? '', attempt: Number(task[2]) };
  const idx = value.indexOf(':');
  return { kind: value.slice(0, idx), id: value.slice(idx + 1) };
}

/** Builds the stream id of a task attempt. */
export function taskStreamId(taskId: string, attempt: number): string {
  return `task:${taskId}:attempt:${attempt}`;
}

export const StreamId = z.string().superRefine((value, ctx) => {
  const problem = streamIdProblem(value);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});
