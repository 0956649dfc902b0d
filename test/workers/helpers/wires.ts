import { SELF } from 'cloudflare:test';

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

export function post(
  streamId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function readAll(
  streamId: string,
): Promise<{ stream_seq: number; wire_id: string }[]> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires?limit=1000`);
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
