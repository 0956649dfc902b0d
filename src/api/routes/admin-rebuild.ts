import { Hono } from 'hono';
import * as z from 'zod';
import { hederaConfig } from '../../anchor';
import { parseRows, rowShape } from '../../kernel/sql';
import { isModelName, META_ROW, type ModelName, modelNames, reducers } from '../../projection';
import { type RebuildJob, rebuilderStub } from '../../projection/rebuilder';
import { fail } from '../../protocol';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import { requireAllStreams, requireScope } from '../auth';
import { bodyProblem } from '../body-problem';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';

/**
 * `POST /v1/admin/rebuild`: start replaying the HCS topics from the mirror
 * node into the read models (in the Rebuilder Durable Object), streaming its
 * progress as NDJSON (one JSON object per line). `GET /v1/admin/rebuild`:
 * follow the running (or last) rebuild. `GET /v1/admin/projection`: reducer
 * versions, status, watermark.
 */
export const adminRebuild = new Hono<AppEnv>();

/** `POST /v1/admin/rebuild`: which read models (all when left out; `stale`: those behind). */
export const RebuildBody = z.strictObject({
  models: z
    .union([
      z.literal('stale'),
      z
        .array(
          z
            .string()
            .refine(isModelName, { error: () => `must be one of ${modelNames().join(', ')}` }),
        )
        .min(1),
    ])
    .optional(),
});

const TOPIC_ROW = rowShape('projection_topics', { topic_id: 'text' });

/** Every topic the coordinator knows: its directory, its configuration, past anchors. */
async function knownTopics(env: AppEnv['Bindings'], db: D1Database): Promise<string[]> {
  const config = hederaConfig(env);
  const fromDirectory = (await directoryStub(env).topics()).map((t) => t.hcs_topic_id);
  const fromAnchors = (
    await db.prepare('SELECT topic_id FROM projection_topics').all()
  ).results.map((r) => TOPIC_ROW.parse(r).topic_id);
  return [...new Set([...fromDirectory, ...Object.values(config.topics), ...fromAnchors])].sort();
}

adminRebuild.post('/admin/rebuild', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'POST /v1/admin/rebuild');
  if (denied) return denied;
  let models: ModelName[] | 'stale' | undefined;
  if (c.req.header('Content-Length') !== '0' && c.req.header('Content-Type')) {
    const body = await readJsonBody(c, 4096);
    if (!body.ok) return problem(c, body);
    const parsed = RebuildBody.safeParse(body.body);
    // invalid-query (400), as it always answered: the body picks what to rebuild.
    if (!parsed.success) return problem(c, bodyProblem(parsed.error, 'invalid-query'));
    const wanted = parsed.data.models;
    models = wanted === 'stale' ? 'stale' : wanted?.filter(isModelName);
  }
  const rebuilder = rebuilderStub(c.env);
  const outcome = await rebuilder.start(models, await knownTopics(c.env, c.env.DB));
  if (!outcome.started) {
    const { job } = outcome;
    return problem(
      c,
      fail(
        'rebuild-running',
        `a rebuild of ${job.models.join(', ')} started at ${job.started_at} is running; follow it with GET /v1/admin/rebuild`,
        { extra: { rebuild_id: job.id, started_at: job.started_at, models: job.models } },
      ),
    );
  }
  return followRebuild(rebuilder, outcome.job);
});

/** The running or last rebuild's progress from its first line, as NDJSON, until it ends. */
adminRebuild.get('/admin/rebuild', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'GET /v1/admin/rebuild');
  if (denied) return denied;
  const rebuilder = rebuilderStub(c.env);
  const job = await rebuilder.current();
  if (!job) return problem(c, fail('not-found', 'no rebuild has run yet'));
  return followRebuild(rebuilder, job);
});

/** How long one call to the Rebuilder waits for a new line. */
const FOLLOW_WAIT_MS = 1_000;

/**
 * Streams a rebuild's progress lines as they come. The rebuild runs in the
 * Rebuilder, not here: a caller that hangs up stops only its own stream.
 */
function followRebuild(rebuilder: ReturnType<typeof rebuilderStub>, job: RebuildJob): Response {
  const encoder = new TextEncoder();
  let next = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const got = await rebuilder.follow(job.id, next, FOLLOW_WAIT_MS);
        next = got.next;
        if (got.lines.length > 0) controller.enqueue(encoder.encode(`${got.lines.join('\n')}\n`));
        if (got.status === 'gone') {
          const line = { phase: 'error', detail: 'a newer rebuild replaced this one' };
          controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
        }
        if (got.status !== 'running') {
          controller.close();
          return;
        }
        if (got.lines.length > 0 || cancelled) return;
      }
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, {
    headers: {
      'Content-Type': 'application/x-ndjson',
      'Cache-Control': 'no-store',
      'Wirestream-Rebuild-Id': job.id,
    },
  });
}

adminRebuild.get('/admin/projection', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'GET /v1/admin/projection');
  if (denied) return denied;
  const rows = await c.env.DB.prepare(
    'SELECT model, reducer_version, status, watermark, last_received_at FROM projection_meta',
  ).all();
  const code = new Map(reducers().map((r) => [r.model as string, r.version]));
  return Response.json({
    rebuild: await rebuilderStub(c.env).current(),
    models: parseRows(META_ROW, rows.results).map((r) => ({
      ...r,
      code_version: code.get(r.model) ?? r.reducer_version,
      stale: (code.get(r.model) ?? r.reducer_version) !== r.reducer_version,
    })),
  });
});
