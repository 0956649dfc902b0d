import type { Context } from 'hono';
import type { AppEnv } from '../../../api/app-env';
import { tokenGuards } from '../../../api/auth/guard-append';
import { principalOf } from '../../../api/auth/require';
import { problem } from '../../../api/problem';
import { readJsonBody } from '../../../api/read-json-body';
import { intVar } from '../../../env';
import { appendBody } from '../../../kernel/append';
import { type FieldIssue, fail, invalidWire, type Result } from '../../../protocol';
import { isJsonObject, type JsonObject } from '../../../protocol/dialects';
import { streamStub } from '../../../stream/stub';
import { REGISTRY } from '../../index';
import { DIALECT } from '../envelope';

/** What an endpoint requires of the Envelope v1 it is sent. */
export interface EnvelopeRule {
  /** The messageTypes this endpoint takes. */
  messageTypes: readonly string[];
  /** Envelope members that must equal the path's (`channelId`, `workerId`, `branchId`). */
  equal?: Record<string, string>;
  /** Members that must be present. */
  required?: readonly string[];
}

/** Reads and checks an Envelope v1 body: the body, or a precise 4xx failure. */
export async function readEnvelope(
  c: Context<AppEnv>,
  rule: EnvelopeRule,
): Promise<Result<{ body: JsonObject }>> {
  const read = await readJsonBody(c, intVar(c.env.WIRE_MAX_BYTES, 8192));
  if (!read.ok) return read;
  const body = read.body;
  if (!isJsonObject(body))
    return invalidWire([{ path: '(envelope)', message: 'an Envelope v1 must be a JSON object' }]);
  const issues: FieldIssue[] = [];
  if (!rule.messageTypes.includes(String(body.messageType)))
    issues.push({
      path: 'messageType',
      message: `this endpoint takes ${rule.messageTypes.map((t) => `"${t}"`).join(' or ')}`,
    });
  for (const [member, value] of Object.entries(rule.equal ?? {})) {
    if (body[member] !== undefined && body[member] !== value)
      issues.push({ path: member, message: `must be "${value}" (the path's) or absent` });
  }
  for (const member of rule.required ?? []) {
    if (body[member] === undefined) issues.push({ path: member, message: 'is required here' });
  }
  if (issues.length > 0) return invalidWire(issues);
  // The path's ids fill in what the body left out.
  return { ok: true, body: { ...body, ...rule.equal } };
}

/** Appends an Envelope v1 to `streamId` through the one append path; the response. */
export async function appendEnvelope(
  c: Context<AppEnv>,
  streamId: string,
  body: JsonObject,
): Promise<Response> {
  const result = await appendBody(
    {
      body,
      streamId,
      guards: tokenGuards(c),
      options: { dialect: DIALECT, sender: principalOf(c).sub },
      commit: (draft, expectedSeq) => streamStub(c.env, streamId).append(draft, expectedSeq),
    },
    REGISTRY,
  );
  if (!result.ok) return problem(c, result);
  const headers: Record<string, string> = { ETag: `"${result.receipt.stream_seq}"` };
  if (result.replay) headers['Idempotent-Replay'] = 'true';
  return c.json(result.receipt, result.status, headers);
}

/** A path id (channel, worker, branch): the same grammar as a stream id's id. */
const PATH_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/;

export function pathId(what: string, value: string | undefined): Result<{ id: string }> {
  if (value !== undefined && PATH_ID.test(value)) return { ok: true, id: value };
  return fail(
    'invalid-stream-id',
    `${what} must be 1-100 characters: letters, digits, . _ ~ - (starting with a letter or digit), got "${value ?? ''}"`,
  );
}
