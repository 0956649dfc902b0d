import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, limitQuery, parseQuery, problem } from '../../../api/module-kit';
import { appendChecked, appendEnvelope, readEnvelope } from './append-envelope';
import { envelopeId, kindPath, spawnedState } from './path-ids';

/**
 * FR-4's branch side: the branch's agent saves and recalls memory
 * (`memory_save` → `memory.saved` on a `memory:<messageId>` stream, projected
 * into D1 with FTS5; `memory_recall` → a full-text query) and returns its
 * conclusion, which is all the channel hears of it.
 */
export const branches = new Hono<AppEnv>();

/** `GET /v1/branches/{id}/memory` (memory_recall) */
export const RecallQuery = {
  // A blank q splits into no terms, and FTS5 refuses an empty MATCH.
  q: z
    .string()
    .max(200, 'q must be at most 200 characters')
    .regex(/\S/, 'q must hold at least one word'),
  limit: limitQuery(50, 10),
};

branches.use('/branches/:branch_id/*', kindPath('branch', 'branch_id'));

branches.post('/branches/:branch_id/conclusion', (c) =>
  appendChecked(c, `branch:${c.req.param('branch_id')}`, {
    messageTypes: ['branch.conclusion'],
    equal: { branchId: c.req.param('branch_id') },
  }),
);

branches.get('/branches/:branch_id/state', spawnedState('branch', 'branch_id'));

branches.post('/branches/:branch_id/memory', async (c) => {
  const id = c.req.param('branch_id');
  const env = await readEnvelope(c, { messageTypes: ['memory.saved'], equal: { branchId: id } });
  if (!env.ok) return problem(c, env);
  const mem = envelopeId(env.body, 'messageId');
  if (!mem.ok) return problem(c, mem);
  return appendEnvelope(c, `memory:${mem.id}`, env.body);
});

branches.get('/branches/:branch_id/memory', async (c) => {
  const parsed = parseQuery(c, RecallQuery);
  if (!parsed.ok) return problem(c, parsed);
  // FTS5 query syntax is not the client's to write: each word is a quoted term.
  const terms = parsed.query.q
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => `"${t.replaceAll('"', '""')}"`)
    .join(' OR ');
  const rows = await c.env.DB.prepare(
    `SELECT m.memory_id, m.text, m.tags, m.branch_id, m.channel_id, m.saved_at
       FROM runtime_memory_fts f JOIN runtime_memory m ON m.memory_id = f.memory_id
      WHERE runtime_memory_fts MATCH ?1 ORDER BY bm25(runtime_memory_fts), m.memory_id LIMIT ?2`,
  )
    .bind(terms, parsed.query.limit)
    .all<Record<string, string | null>>();
  return Response.json({
    query: parsed.query.q,
    memories: rows.results.map((r) => ({ ...r, tags: JSON.parse(r.tags ?? '[]') as string[] })),
  });
});
