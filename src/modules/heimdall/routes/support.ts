import type { Context } from 'hono';
import type * as z from 'zod';
import type { AppEnv } from '../../../api/app-env';
import { tokenGuards } from '../../../api/auth/guard-append';
import { principalOf } from '../../../api/auth/require';
import { bodyProblem } from '../../../api/body-problem';
import { readJsonBody } from '../../../api/read-json-body';
import { appendBody } from '../../../kernel/append';
import type { AppendResult } from '../../../kernel/kind';
import { fail, newWireId, type Result } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { REGISTRY } from '../..';
import { WorkspaceId } from '../identity';

export const MAX_BODY_BYTES = 64 * 1024;

/** The `{ws}` path parameter, checked. */
export function workspaceParam(c: Context<AppEnv>): Result<{ ws: string }> {
  const ws = c.req.param('ws') ?? '';
  const parsed = WorkspaceId.safeParse(ws);
  if (!parsed.success) {
    return fail('invalid-workspace', `workspace "${ws}": ${parsed.error.issues[0]?.message}`);
  }
  return { ok: true, ws };
}

/** A JSON body checked against `schema`: the value, or a problem naming each field. */
export async function bodyOf<T extends z.ZodType>(
  c: Context<AppEnv>,
  schema: T,
  maxBytes = MAX_BODY_BYTES,
): Promise<Result<{ value: z.infer<T> }>> {
  const body = await readJsonBody(c, maxBytes);
  if (!body.ok) return body;
  const parsed = schema.safeParse(body.body);
  if (!parsed.success) return bodyProblem(parsed.error);
  return { ok: true, value: parsed.data };
}

/**
 * Appends a Wire of `type` as the caller (sender = the token's subject)
 * through the one append path: catalogue, rights, rate, then the stream's
 * decider.
 */
export function appendAs(
  c: Context<AppEnv>,
  streamId: string,
  type: string,
  payload: Record<string, unknown>,
  more: { wireId?: string; ts?: string } = {},
): Promise<AppendResult> {
  const body = {
    wire: '1.1',
    wire_id: more.wireId ?? newWireId(),
    stream_id: streamId,
    correlation_id: null,
    causation_id: null,
    type,
    sender: principalOf(c).sub,
    ts: more.ts ?? new Date().toISOString(),
    payload,
  };
  return appendBody(
    {
      body,
      streamId,
      guards: tokenGuards(c),
      commit: (draft, expectedSeq) => streamStub(c.env, streamId).append(draft, expectedSeq),
    },
    REGISTRY,
  );
}

/** The decision state of a stream, as its kind's `view` hook shows it. */
export async function viewOf<T>(c: Context<AppEnv>, streamId: string): Promise<T> {
  const view = await streamStub(c.env, streamId).coordination();
  return view.state as T;
}
