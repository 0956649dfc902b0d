import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/attack';
import { authHeaders } from './helpers/auth';
import { uniqueStream } from './helpers/wires';

const CHUNK = 64 * 1024;

/** A chunked body (no Content-Length) of `total` bytes that counts what the server pulled. */
function countingBody(total: number) {
  let pulled = 0;
  const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(CHUNK - 9)}`);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= total) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

/** Every route that reads a body, with its cap in bytes. */
const BODY_ROUTES: [route: string, path: () => string, limit: number][] = [
  ['POST /v1/streams/{id}/wires', () => `/v1/streams/${uniqueStream()}/wires`, 8192],
  ['POST /v1/tokens', () => '/v1/tokens', 4096],
  ['PUT /v1/streams/{id}/topic', () => `/v1/streams/${uniqueStream()}/topic`, 1024],
  ['POST /v1/admin/rebuild', () => '/v1/admin/rebuild', 4096],
];

describe('request bodies are read with a running cap', () => {
  it.each(BODY_ROUTES)(
    '%s stops reading a chunked body at its limit and answers 413',
    async (route, path, limit) => {
      const method = route.split(' ')[0] ?? 'POST';
      const body = countingBody(16 * 1024 * 1024);
      const res = await SELF.fetch(`https://ws.test${path()}`, {
        method,
        headers: { ...(await authHeaders()), 'Content-Type': 'application/json' },
        body: body.stream,
        // @ts-expect-error workerd's fetch takes duplex for streamed bodies
        duplex: 'half',
      });
      const problem = await expectProblem(res, 413, 'envelope-too-large');
      expect(problem.limit_bytes).toBe(limit);
      expect(problem.detail).toContain(`the limit is ${limit} bytes`);
      // Read no further than the chunk that crossed the limit (and one in flight).
      expect(body.pulled()).toBeLessThanOrEqual(3 * CHUNK);
    },
  );
});
