import { Hono } from 'hono';
import * as z from 'zod';
import { hederaConfig } from '../../anchor';
import {
  isModelName,
  MODEL_NAMES,
  mirrorSource,
  REDUCERS,
  type RebuildProgress,
  rebuild,
  staleModels,
} from '../../projection';
import { fail } from '../../protocol';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import { requireAllStreams, requireScope } from '../auth';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';

/**
 * `POST /v1/admin/rebuild`: drop the read models and replay the HCS topics
 * from the mirror node, streaming progress as NDJSON (one JSON object per
 * line). `GET /v1/admin/projection`: reducer versions, status, watermark.
 */
export const adminRebuild = new Hono<AppEnv>();

const Body = z.strictObject({
  models: z
    .union([
      z.literal('stale'),
      z
        .array(
          z.string().refine(isModelName, { error: `must be one of ${MODEL_NAMES.join(', ')}` }),
        )
        .min(1),
    ])
    .optional(),
});

/** Every topic the coordinator knows: its directory, its configuration, past anchors. */
async function knownTopics(env: AppEnv['Bindings'], db: D1Database): Promise<string[]> {
  const config = hederaConfig(env);
  const fromDirectory = (await directoryStub(env).topics()).map((t) => t.hcs_topic_id);
  const fromAnchors = (
    await db.prepare('SELECT topic_id FROM projection_topics').all<{ topic_id: string }>()
  ).results.map((r) => r.topic_id);
  return [...new Set([...fromDirectory, ...Object.values(config.topics), ...fromAnchors])].sort();
}

adminRebuild.post('/admin/rebuild', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'POST /v1/admin/rebuild');
  if (denied) return denied;
  let models: (typeof MODEL_NAMES)[number][] | undefined;
  if (c.req.header('Content-Length') !== '0' && c.req.header('Content-Type')) {
    const body = await readJsonBody(c, 4096);
    if (!body.ok) return problem(c, body);
    const parsed = Body.safeParse(body.body);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => ({
        path: i.path.map(String).join('.') || '(body)',
        message: i.message,
      }));
      return problem(
        c,
        fail('invalid-query', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors }),
      );
    }
    const wanted = parsed.data.models;
    if (wanted === 'stale') models = await staleModels(c.env.DB);
    else if (wanted) models = wanted.filter(isModelName);
  }
  const db = c.env.DB;
  const source = mirrorSource(hederaConfig(c.env).mirrorUrl, await knownTopics(c.env, db));

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const line = (value: RebuildProgress | { phase: 'error'; detail: string }) =>
    writer.write(encoder.encode(`${JSON.stringify(value)}\n`));
  const run = (async () => {
    try {
      if (models !== undefined && models.length === 0) {
        await line({
          phase: 'done',
          models: [],
          topics: 0,
          streams: 0,
          wires: 0,
          skipped: 0,
          seconds: 0,
          wires_per_second: 0,
        });
        return;
      }
      await rebuild(db, source, { ...(models ? { models } : {}), onProgress: line });
    } catch (error) {
      console.error('rebuild failed', error);
      await line({
        phase: 'error',
        detail: error instanceof Error ? error.message : String(error),
      });
    } finally {
      await writer.close();
    }
  })();
  c.executionCtx.waitUntil(run);
  return new Response(readable, {
    headers: { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' },
  });
});

adminRebuild.get('/admin/projection', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'GET /v1/admin/projection');
  if (denied) return denied;
  const rows = await c.env.DB.prepare(
    'SELECT model, reducer_version, status, watermark, last_received_at FROM projection_meta',
  ).all<{ model: string; reducer_version: number; status: string }>();
  const code = new Map(REDUCERS.map((r) => [r.model as string, r.version]));
  return Response.json({
    models: rows.results.map((r) => ({
      ...r,
      code_version: code.get(r.model) ?? r.reducer_version,
      stale: (code.get(r.model) ?? r.reducer_version) !== r.reducer_version,
    })),
  });
});
