import { SELF } from 'cloudflare:test';
import { authHeaders } from './auth';

/** Builders and calls shared by the workers tests. */

let counter = 0;

export function uniqueStream(kind = 'project'): string {
  counter += 1;
  return `${kind}:t${Date.now().toString(36)}${counter}`;
}

export function wire11(streamId: string, overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    wire: '1.1',
    wire_id: `wire_test_${Date.now().toString(36)}_${counter}`,
    stream_id: streamId,
    correlation_id: 'project:kv-m02',
    causation_id: null,
    type: 'review.concern',
    sender: 'agent:quinn-07',
    ts: '2026-05-01T16:00:00Z',
    payload: { concern: 'naming' },
    ...overrides,
  };
}

/** A token subject for the Wire's sender, so sender binding holds (agent:test otherwise). */
function subjectOf(body: unknown): string {
  const sender = (body as { sender?: unknown } | null)?.sender;
  return typeof sender === 'string' &&
    /^(agent|human|coordinator):[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(sender)
    ? sender
    : 'agent:test';
}

/** Appends with a token for the Wire's sender; pass an Authorization header to override. */
export async function post(
  streamId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const auth = await authHeaders(typeof body === 'string' ? 'agent:test' : subjectOf(body));
  return SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function readAll(
  streamId: string,
): Promise<{ stream_seq: number; wire_id: string }[]> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires?limit=1000`, {
    headers: await authHeaders(),
  });
  const page = (await res.json()) as { wires: { stream_seq: number; wire_id: string }[] };
  return page.wires;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
  [key: string]: unknown;
}

export async function problemOf(res: Response): Promise<Problem> {
  if (res.headers.get('content-type') !== 'application/problem+json') {
    throw new Error(
      `expected problem+json, got ${res.headers.get('content-type')} (${res.status})`,
    );
  }
  return (await res.json()) as Problem;
}
