import { SELF } from 'cloudflare:test';
import { authHeaders } from './auth';

/** Calls the heimdall tests share: `/v1/workspaces/…` as one identity or another. */

export type Json = Record<string, unknown>;
export interface Answer {
  status: number;
  type: string;
  body: Json;
  text: string;
}

export const ADMIN = 'admin';

export async function api(
  method: string,
  path: string,
  sub: string,
  body?: unknown,
): Promise<Answer> {
  const auth =
    sub === ADMIN
      ? { Authorization: 'Bearer test-admin-token-not-for-production' }
      : await authHeaders(sub, ['append', 'read', 'claim']);
  const res = await SELF.fetch(`https://ws.test${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const type = res.headers.get('Content-Type') ?? '';
  let parsed: Json = {};
  if (type.includes('json')) parsed = JSON.parse(text) as Json;
  return { status: res.status, type, body: parsed, text };
}

let n = 0;
export function wsId(prefix = 'ws'): string {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
}

/** The seed's valid `task_result` example (`heimdall-validate` → valid). */
export const SEED_TASK_RESULT = {
  type: 'task_result',
  from: 'coder',
  msg_id: 'm1',
  task: '3.2',
  status: 'pass',
  criteria: [1, 2],
  commit: 'a2ef507',
};

/** The seed's `heimdall-brief build` example. */
export const SEED_BRIEF = {
  task: '3.2',
  spec: 'implement book diff',
  symbols: ['F12', 'C3'],
  capsules: ['w2'],
  invariants: 'INVARIANTS.md',
};

/**
 * What racer `i` of a claim race (REST or MCP) asks for: area `i % areas`,
 * with one of four globs that all overlap there.
 */
export function racerSurfaces(i: number, areas: number): string[] {
  const area = i % areas;
  const globs = [
    [`area${area}/**`],
    [`area${area}/{x,y}/*.ts`],
    [`area${area}/x/a.ts`],
    [`area${area}/*/a.?s`],
  ];
  return globs[Math.floor(i / areas) % 4] as string[];
}
