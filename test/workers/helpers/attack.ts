import { SELF } from 'cloudflare:test';
import { expect } from 'vitest';
import { authHeaders } from './auth';
import { type Problem, problemOf } from './wires';

/** Asserts a refusal: status, problem type, and returns the problem for more checks. */
export async function expectProblem(res: Response, status: number, type: string): Promise<Problem> {
  expect(res.status).toBe(status);
  const body = await problemOf(res);
  expect(body.type).toBe(`/problems/${type}`);
  expect(body.status).toBe(status);
  return body;
}

/** Nothing was stored (so nothing can be anchored or broadcast): the stream does not exist. */
export async function expectNothingStored(streamId: string): Promise<void> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}`, {
    headers: await authHeaders(),
  });
  expect(res.status).toBe(404);
}

/** The stream's head, to show a refused append left it unchanged. */
export async function lastSeq(streamId: string): Promise<number> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}`, {
    headers: await authHeaders(),
  });
  if (res.status === 404) return 0;
  return ((await res.json()) as { last_seq: number }).last_seq;
}
