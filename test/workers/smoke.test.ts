import { SELF } from 'cloudflare:test';
import { expect, it } from 'vitest';

it('answers unknown routes with a problem+json 404', async () => {
  const res = await SELF.fetch('https://ws.test/nope');
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
});
