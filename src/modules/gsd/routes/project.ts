import type { Context } from 'hono';
import * as z from 'zod';
import { type AppEnv, problem, requireScope, requireStream } from '../../../api/module-kit';
import { fail, streamIdProblem } from '../../../protocol';
import { type StreamApi, streamStub } from '../../../stream/stub';
import { GSD_KIND } from '../catalogue';
import { type GsdState, initialState } from '../kinds/state';

/** `{project_id}`: the id of a `gsd:<project_id>` stream. */
export const ProjectId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    'project_id must be 1-64 characters: lower-case letters, digits, . _ - (starting with a letter or digit); it is also the workspace id of its file claims',
  );

export interface ProjectCall {
  projectId: string;
  streamId: string;
  stub: StreamApi;
}

/** The project a route names, checked against the token (scope, stream prefixes), or a problem. */
export function projectOf(c: Context<AppEnv>, scope: 'read' | 'append'): ProjectCall | Response {
  const projectId = c.req.param('project_id') ?? '';
  const parsed = ProjectId.safeParse(projectId);
  if (!parsed.success) {
    return problem(
      c,
      fail('invalid-stream-id', `project_id "${projectId}": ${parsed.error.issues[0]?.message}`),
    );
  }
  const streamId = `${GSD_KIND}:${projectId}`;
  const bad = streamIdProblem(streamId);
  if (bad !== null) return problem(c, fail('invalid-stream-id', bad));
  const denied = requireScope(c, scope) ?? requireStream(c, streamId);
  if (denied) return denied;
  return { projectId, streamId, stub: streamStub(c.env, streamId) };
}

/** The project's decision state (empty for a project with no events yet). */
export async function stateOf(stub: StreamApi): Promise<GsdState> {
  const view = await stub.coordination();
  return view.kind === GSD_KIND && view.state ? (view.state as GsdState) : initialState();
}
