import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, limitQuery, parseQuery, problem } from '../../../api/module-kit';

/** `GET /v1/bulletins`: the Visor's bulletins, newest first (runtime_memory_bulletins). */
export const bulletins = new Hono<AppEnv>();

export const BulletinsQuery = {
  limit: limitQuery(100, 20),
  before: z.iso
    .datetime({ offset: true, error: 'before must be an ISO 8601 date-time' })
    .optional(),
};

bulletins.get('/bulletins', async (c) => {
  const parsed = parseQuery(c, BulletinsQuery);
  if (!parsed.ok) return problem(c, parsed);
  const { limit, before } = parsed.query;
  const rows = await c.env.DB.prepare(
    `SELECT bulletin_id, digest, window_from, window_to, counts, tokens, generated_at
       FROM runtime_memory_bulletins WHERE ?1 IS NULL OR window_to < ?1
      ORDER BY window_to DESC LIMIT ?2`,
  )
    .bind(before ? new Date(before).toISOString() : null, limit)
    .all<Record<string, string | number>>();
  return Response.json({
    bulletins: rows.results.map((r) => ({ ...r, counts: JSON.parse(String(r.counts)) })),
  });
});
