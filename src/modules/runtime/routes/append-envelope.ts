import type { Context } from 'hono';
import {
  type AppEnv,
  principalOf,
  problem,
  readJsonBody,
  requireStream,
  tokenGuards,
} from '../../../api/module-kit';
import { intVar } from '../../../env';
import { appendBody } from '../../../kernel/append';
import type { AppendResult } from '../../../kernel/kind';
import { type FieldIssue, invalidWire, type Result } from '../../../protocol';
import { isJsonObject, type JsonObject } from '../../../protocol/dialects';
import { streamStub } from '../../../stream/stub';
import { REGISTRY } from '../../index';
import { DIALECT } from '../envelope';
import { envelopeId } from './path-ids';

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

/**
 * Runs the commit of a Wire whose guards (rights, signature, rate) have all
 * passed, with whatever the Wire stands for stored around it: an artifact's
 * bytes go to R2 only once nothing can refuse them but the stream itself.
 */
export type AroundCommit = (commit: () => Promise<AppendResult>) => Promise<AppendResult>;

/** Appends an Envelope v1 to `streamId` through the one append path; the response. */
export async function appendEnvelope(
  c: Context<AppEnv>,
  streamId: string,
  body: JsonObject,
  around?: AroundCommit,
): Promise<Response> {
  const result = await appendBody(
    {
      body,
      streamId,
      env: c.env,
      guards: tokenGuards(c),
      options: { dialect: DIALECT, sender: principalOf(c).sub },
      commit: (draft, expectedSeq) => {
        const commit = () => streamStub(c.env, streamId).append(draft, expectedSeq);
        return around ? around(commit) : commit();
      },
      replayOf: (draft) => streamStub(c.env, streamId).replayOf(draft),
    },
    REGISTRY,
  );
  if (!result.ok) return problem(c, result);
  const headers: Record<string, string> = { ETag: `"${result.receipt.stream_seq}"` };
  if (result.replay) headers['Idempotent-Replay'] = 'true';
  return c.json(result.receipt, result.status, headers);
}

/** Reads an Envelope v1 that `rule` allows and appends it to `streamId`; the response. */
export async function appendChecked(
  c: Context<AppEnv>,
  streamId: string,
  rule: EnvelopeRule,
): Promise<Response> {
  const env = await readEnvelope(c, rule);
  if (!env.ok) return problem(c, env);
  return appendEnvelope(c, streamId, env.body);
}

/**
 * Reads an Envelope v1 that opens a `kind` stream named by its `member`
 * (`channelId`, `workerId`), checks the token may reach that stream, and
 * appends it there; the response.
 */
export async function appendOpening(
  c: Context<AppEnv>,
  kind: string,
  member: string,
  rule: EnvelopeRule,
): Promise<Response> {
  const env = await readEnvelope(c, rule);
  if (!env.ok) return problem(c, env);
  const id = envelopeId(env.body, member);
  if (!id.ok) return problem(c, id);
  const denied = requireStream(c, `${kind}:${id.id}`);
  if (denied) return denied;
  return appendEnvelope(c, `${kind}:${id.id}`, env.body);
}
