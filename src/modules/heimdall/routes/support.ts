import type { Context } from 'hono';
import type * as z from 'zod';
import {
  type AppEnv,
  bodyProblem,
  principalOf,
  problem,
  readJsonBody,
  requireStream,
  tokenGuards,
} from '../../../api/module-kit';
import { appendBody } from '../../../kernel/append';
import type { AppendResult } from '../../../kernel/kind';
import { draftOf, fail, newWireId, type Result } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { REGISTRY } from '../..';
import { haidOf, WorkspaceId, workspaceStream } from '../identity';
import { workspaceDecider } from '../workspace/decider';
import type { WorkspaceState } from '../workspace/state';

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
  const body = draftOf({
    wire_id: more.wireId ?? newWireId(),
    stream_id: streamId,
    type,
    sender: principalOf(c).sub,
    ts: more.ts ?? new Date().toISOString(),
    payload,
  });
  return appendBody(
    {
      body,
      streamId,
      env: c.env,
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

/** The `{ws}` param and the token's stream prefixes for `streamOf(ws)`: the target, or a response. */
export function targetOf(
  c: Context<AppEnv>,
  streamOf: (ws: string) => string,
): { ws: string; stream: string } | { res: Response } {
  const ws = workspaceParam(c);
  if (!ws.ok) return { res: problem(c, ws) };
  const stream = streamOf(ws.ws);
  const denied = requireStream(c, stream);
  if (denied) return { res: denied };
  return { ws: ws.ws, stream };
}

/** The `workspace:<ws>` stream of the `{ws}` param, as `targetOf` checks it. */
export function workspaceTarget(c: Context<AppEnv>) {
  return targetOf(c, workspaceStream);
}

/** The workspace's decision state (the initial state before its first Wire). */
export async function workspaceState(c: Context<AppEnv>, ws: string): Promise<WorkspaceState> {
  return (
    (await viewOf<WorkspaceState | null>(c, workspaceStream(ws))) ?? workspaceDecider.initialState()
  );
}

/** The caller's haid from a body's optional `haid`, or a 403 Failure naming it. */
export function callerHaid(c: Context<AppEnv>, asked: unknown) {
  return haidOf(principalOf(c).sub, asked);
}

/**
 * A write as the caller: the body as `schema` reads it, the caller's haid
 * from its `haid`, then a Wire of `type` appended to `streamId` with the
 * payload `payloadOf` makes (the body with the checked haid, by default).
 * The body, the haid and the append's result, or the first Failure.
 */
export async function writeAs<T extends z.ZodType<{ haid?: string | undefined }>>(
  c: Context<AppEnv>,
  streamId: string,
  schema: T,
  type: string,
  payloadOf: (value: z.infer<T>, haid: string) => Record<string, unknown> = (value, haid) => ({
    ...value,
    haid,
  }),
): Promise<Result<{ value: z.infer<T>; haid: string; receipt: AppendedReceipt }>> {
  const body = await bodyOf(c, schema);
  if (!body.ok) return body;
  const who = callerHaid(c, body.value.haid);
  if (!who.ok) return who;
  const result = await appendAs(c, streamId, type, payloadOf(body.value, who.haid));
  if (!result.ok) return result;
  return { ok: true, value: body.value, haid: who.haid, receipt: result.receipt };
}

type AppendedReceipt = Extract<AppendResult, { ok: true }>['receipt'];
