import { env } from 'cloudflare:test';
import { bodyLimit } from 'hono/body-limit';
import { validator } from 'hono/validator';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';

/**
 * hono's own middleware (its JSON validator, bodyLimit) refuses bad requests
 * by throwing HTTPException. Mounted on the real app, those refusals must
 * reach the client as the 4xx problem+json they are, not as a 500.
 */
function appWithHonoMiddleware() {
  const app = createApp();
  app.post(
    '/echo',
    bodyLimit({ maxSize: 64 }),
    validator('json', (value) => value),
    (c) => c.json(c.req.valid('json')),
  );
  return app;
}

async function send(body: string, contentType = 'application/json') {
  const res = await appWithHonoMiddleware().request(
    '/echo',
    { method: 'POST', headers: { 'Content-Type': contentType }, body },
    env,
  );
  const text = await res.text();
  return { res, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe("hono's HTTPException", () => {
  it('answers malformed JSON rejected by hono with a 400 malformed-json problem', async () => {
    const { res, json } = await send('{"half":');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(json()).toMatchObject({
      type: '/problems/malformed-json',
      status: 400,
      detail: 'Malformed JSON in request body',
    });
  });

  it("answers a body over hono's bodyLimit with a 413 problem", async () => {
    const { res, json } = await send(JSON.stringify({ pad: 'x'.repeat(200) }));
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(json()).toMatchObject({ type: '/problems/envelope-too-large', status: 413 });
  });

  it('still passes a good body through, and keeps 500 for real bugs', async () => {
    const ok = await send('{"a":1}');
    expect(ok.res.status).toBe(200);
    expect(ok.json()).toEqual({ a: 1 });
    const app = createApp();
    app.get('/boom', () => {
      throw new Error('a bug');
    });
    const res = await app.request('/boom', {}, env);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { type: string }).type).toBe('/problems/internal');
  });
});
