import { SELF } from 'cloudflare:test';
import type { Scope } from '../../../src/api/auth/claims';
import { authHeaders } from './auth';

/** Seed 004's example events, exactly as the seed writes them. */
export const SEED_EVENTS = {
  taskStarted: {
    type: 'task:started',
    agent: 'gsd-executor',
    plan: '01-02',
    task: 1,
    taskName: 'Create User model',
    timestamp: '2024-01-15T10:30:00Z',
  },
  taskCompleted: {
    type: 'task:completed',
    agent: 'gsd-executor',
    plan: '01-02',
    task: 1,
    taskName: 'Create User model',
    commit: 'abc1234',
    duration: '15min',
    timestamp: '2024-01-15T10:45:00Z',
  },
  taskFailed: {
    type: 'task:failed',
    agent: 'gsd-executor',
    plan: '01-02',
    task: 1,
    error: 'Test verification failed',
    timestamp: '2024-01-15T10:45:00Z',
  },
  artifactCreated: {
    type: 'artifact:created',
    path: 'src/models/user.ts',
    provides: ['User', 'UserCreate', 'UserUpdate'],
    createdBy: '01-01',
    timestamp: '2024-01-15T10:35:00Z',
  },
  artifactModified: {
    type: 'artifact:modified',
    path: 'src/models/user.ts',
    modifiedBy: '01-02',
    changes: ['added role field'],
    timestamp: '2024-01-15T11:00:00Z',
  },
  fileClaimed: {
    type: 'file:claimed',
    path: 'src/api/users.ts',
    agent: 'gsd-executor',
    plan: '01-02',
    timestamp: '2024-01-15T10:30:00Z',
  },
  fileReleased: {
    type: 'file:released',
    path: 'src/api/users.ts',
    agent: 'gsd-executor',
    timestamp: '2024-01-15T10:45:00Z',
  },
  dependencySatisfied: {
    type: 'dependency:satisfied',
    artifact: 'src/models/user.ts',
    requiredBy: ['01-02', '01-03'],
    timestamp: '2024-01-15T10:35:00Z',
  },
  decisionMade: {
    type: 'decision:made',
    id: 'dec-001',
    decision: 'Use jose library for JWT',
    rationale: 'Edge runtime compatibility',
    madeBy: '01-02',
    affects: ['02-*'],
    timestamp: '2024-01-15T10:40:00Z',
  },
  checkpointReached: {
    type: 'checkpoint:reached',
    plan: '01-03',
    task: 2,
    checkpointType: 'human-verify',
    awaiting: 'user approval',
    timestamp: '2024-01-15T11:00:00Z',
  },
} as const;

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
