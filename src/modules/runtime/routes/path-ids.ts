import type { Handler, MiddlewareHandler } from 'hono';
import { type AppEnv, problem, requireStream } from '../../../api/module-kit';
import { fail, invalidWire, type Result } from '../../../protocol';
import type { JsonObject } from '../../../protocol/dialects';
import { streamStub } from '../../../stream/stub';

/** A path id (channel, worker, branch): the same grammar as a stream id's id. */
const PATH_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/;

export function pathId(what: string, value: string | undefined): Result<{ id: string }> {
  if (value !== undefined && PATH_ID.test(value)) return { ok: true, id: value };
  return fail(
    'invalid-stream-id',
    `${what} must be 1-100 characters: letters, digits, . _ ~ - (starting with a letter or digit), got "${value ?? ''}"`,
  );
}

/** The id an envelope names in `member` (`workerId`, `messageId`…), or an invalid-wire failure naming it. */
export function envelopeId(body: JsonObject, member: string): Result<{ id: string }> {
  const value = body[member];
  const id = pathId(member, typeof value === 'string' ? value : undefined);
  return id.ok ? id : invalidWire([{ path: member, message: id.detail }]);
}

/**
 * Middleware for the routes under `/<kinds>/:<param>/`: the path's id is
 * well-formed and the token may reach the `<kind>:<id>` stream.
 */
export function kindPath(kind: string, param: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = pathId(`${kind} id`, c.req.param(param));
    if (!id.ok) return problem(c, id);
    const denied = requireStream(c, `${kind}:${id.id}`);
    if (denied) return denied;
    await next();
  };
}

/**
 * `GET /<kinds>/{id}/state` for a spawned kind (worker, branch): the
 * decider's state under `<kind>Id`, or 404 when it was never spawned.
 */
export function spawnedState(kind: 'worker' | 'branch', param: string): Handler<AppEnv> {
  return async (c) => {
    const id = c.req.param(param) ?? '';
    const view = await streamStub(c.env, `${kind}:${id}`).coordination();
    const state = view.state as { status?: string } | null;
    if (!state || state.status === 'none')
      return problem(c, fail('not-found', `${kind} "${id}" was never spawned`));
    return Response.json({ [`${kind}Id`]: id, ...state });
  };
}
