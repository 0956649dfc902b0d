import { SELF } from 'cloudflare:test';
import type { Scope } from '../../../src/api/auth/claims';
import { authHeaders } from './auth';

export { SEED_EVENTS } from '../../fixtures/gsd-seed-events';

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  body: Json;
  res: Response;
}

const EXECUTOR: Scope[] = ['append', 'read'];

/** Headers of `sub` with append + read only (no admin: not a coordinator). */
export async function as(sub: string, scopes: Scope[] = EXECUTOR, roles: string[] = []) {
  return { ...(await authHeaders(sub, scopes, roles.length > 0 ? { roles } : {})) };
}

export async function emit(
  project: string,
  events: unknown,
  sub = 'agent:gsd-executor',
  extra: Record<string, string> = {},
): Promise<Answer> {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
    method: 'POST',
    headers: { ...(await as(sub)), 'Content-Type': 'application/json', ...extra },
    body: JSON.stringify(events),
  });
  return { status: res.status, body: (await res.json()) as Json, res };
}

export async function view(project: string, query = '', sub = 'agent:viewer'): Promise<Answer> {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events${query}`, {
    headers: await as(sub),
  });
  return { status: res.status, body: (await res.json()) as Json, res };
}

export async function projectState(project: string): Promise<Json> {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}`, {
    headers: await as('agent:viewer'),
  });
  return (await res.json()) as Json;
}

export function eventsOf(answer: Answer): Json[] {
  return answer.body.events as Json[];
}
