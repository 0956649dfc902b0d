import { Hono } from 'hono';
import { type AppEnv, serveStatic } from '../../../api/module-kit';

/**
 * `GET /v1/schema/runtime-envelope-v1.json`: JSON Schema (2020-12) of
 * Envelope v1 and of each message type's payload, with its byte budget
 * (built from `../json-schema.ts` at build time: a static asset).
 */
export const schema = new Hono<AppEnv>();

schema.get('/schema/runtime-envelope-v1.json', (c) =>
  serveStatic(c, '/reference/schema/runtime-envelope-v1.json', {
    'Content-Type': 'application/schema+json',
  }),
);
