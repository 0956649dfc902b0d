import * as z from 'zod';
import { type Failure, fail, type Wire } from '../../protocol';

/**
 * Seed 002's identities. `run_id` is the only control key of a run: a
 * ULID-like id (26 Crockford base32 characters, e.g.
 * `01KHEYMKVMMD67SV6P4HWKSEFF`). A run's Wires live on three streams:
 * `run:<run_id>` (the control plane: actor messages and the writer's verdicts,
 * the one serialization point for canon), `run-mailbox:<run_id>` (what is
 * addressed to the writer or the conductor, copied there by the run) and
 * `run-trace:<run_id>` (worker progress and findings, never needed for progress).
 */
export const RUN_ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const RunId = z
  .string()
  .regex(
    RUN_ID_PATTERN,
    'run_id must be a ULID-like id: 26 characters of Crockford base32 (0-9, A-Z without I L O U), e.g. 01KHEYMKVMMD67SV6P4HWKSEFF',
  );

export const runStream = (runId: string) => `run:${runId}`;
export const mailboxStream = (runId: string) => `run-mailbox:${runId}`;
export const traceStream = (runId: string) => `run-trace:${runId}`;

/** The run id a `run:` / `run-mailbox:` / `run-trace:` stream id names. */
export function runIdOf(streamId: string): string {
  return streamId.slice(streamId.indexOf(':') + 1);
}

/** A Wire whose `payload.run_id` is not its stream's run: the Failure naming the field, else null. */
export function otherRun(wire: Wire, stream: 'stream' | 'trace'): Failure | null {
  const runId = runIdOf(wire.stream_id);
  if (wire.payload.run_id === runId) return null;
  return fail(
    'invalid-wire',
    `payload.run_id must be ${runId}, the run this ${stream} belongs to`,
    {
      errors: [{ path: 'payload.run_id', message: `must be ${runId}` }],
    },
  );
}

/** Identities: `agent:…`, `human:…`, `coordinator:…` (token subjects). */
export const Identity = z
  .string()
  .regex(
    /^(agent|human|coordinator):[A-Za-z0-9][A-Za-z0-9._@-]{0,110}$/,
    'an identity looks like "agent:<id>", "human:<id>" or "coordinator:<id>"',
  );

/** A section id: what `section` names in every actor message. */
export const SectionId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,63}$/,
    'a section id is 1-64 lower-case letters, digits, _ or - (e.g. "findings")',
  );
