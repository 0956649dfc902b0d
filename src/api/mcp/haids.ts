import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env';
import { AUTH, type Operation, readScoped } from '../openapi/operation';
import { haidRegistry } from './identity-object';

/** `GET /v1/haids`: the HAID registry (every identity that acted over MCP, with its role). */
export const haids = new Hono<AppEnv>();

haids.get('/haids', async (c) => {
  const list = await haidRegistry(c.env).list();
  return c.json({ haids: list, count: list.length });
});

export const HaidEntrySchema = z.object({
  haid: z.string().meta({ description: '`{root}/{client}`, or the bare root' }),
  root: z.string().meta({ description: "The token's subject" }),
  role: z.string().nullable().meta({ description: 'The client (`cursor`, `claude-code`…)' }),
  status: z.literal('active'),
  registered_at: z.string(),
  last_seen_at: z.string(),
});
export const HaidList = z.object({ haids: z.array(HaidEntrySchema), count: z.int() });

export const MCP_OPERATIONS: Operation[] = [
  readScoped('MCP', {
    path: '/v1/haids',
    operationId: 'listHaids',
    summary: 'The HAID registry: identities that acted over MCP',
    description:
      'Each MCP client is attributed a HAID `{root}/{client}` (root: the token subject; client: ' +
      '`clientInfo.name` at initialize, the `_meta` client info, or `client_identity`). It is ' +
      'registered active with role = the client when it first acts.',
    answer: { description: 'Registered HAIDs, oldest first', schema: HaidList },
    problems: AUTH,
  }),
];
