import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  intQuery,
  parseQuery,
  problem,
  readJsonBody,
  tokenGuards,
} from '../../../api/module-kit';
import { admission, draftOf } from '../../../kernel/append';
import { derivedWireId } from '../../../kernel/derived-id';
import {
  type Draft,
  type Failure,
  fail,
  type ProblemObject,
  storedCanonicalJson,
} from '../../../protocol';
import { REGISTRY } from '../../index';
import { gsdDialect } from '../event';
import { projectOf } from './project';
import { type EventFilter, MAX_WAIT_SECONDS, readEvents } from './read-events';

/** `/v1/projects/{project_id}/events`: seed 004's events.json, as an API. */
export const events = new Hono<AppEnv>();

/** Most events one POST may carry (an array is stored all or nothing). */
export const MAX_BATCH = 100;
const MAX_BODY_BYTES = 256 * 1024;

/** `Idempotency-Key`: a retry with the same key (and events) is answered, not stored again. */
export const IdempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'Idempotency-Key must be 1-128 letters, digits or . _ : -');

/**
 * What a keyed request's events carry as `correlation_id`: the key and a
 * digest of the whole request (RFC 8785 JSON of its events as drafted, and
 * whether they came as an array). An event's content, and so its replay
 * check, then covers the request it came in: the same key with other events —
 * or with the same events plus more — is a different request, refused with
 * 409 instead of stored in part.
 */
async function keyedCorrelation(key: string, batch: boolean, drafts: Draft[]): Promise<string> {
  const request = {
    batch,
    events: drafts.map(({ type, sender, ts, payload }) => ({ type, sender, ts, payload })),
  };
  const bytes = new TextEncoder().encode(storedCanonicalJson(request));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return derivedWireId('gsdk', key, hex);
}

function atIndex(failure: Failure, index: number, batch: boolean): Failure {
  if (!batch) return failure;
  return {
    ...failure,
    detail: `events[${index}]: ${failure.detail}`,
    ...(failure.errors
      ? { errors: failure.errors.map((e) => ({ ...e, path: `[${index}].${e.path}` })) }
      : {}),
    extra: { ...failure.extra, index },
  };
}

events.post('/projects/:project_id/events', async (c) => {
  const project = projectOf(c, 'append');
  if (project instanceof Response) return project;
  const keyHeader = c.req.header('Idempotency-Key');
  const key = keyHeader === undefined ? undefined : IdempotencyKey.safeParse(keyHeader);
  if (key && !key.success) {
    return problem(
      c,
      fail('invalid-header', key.error.issues[0]?.message ?? 'bad Idempotency-Key'),
    );
  }
  const read = await readJsonBody(c, MAX_BODY_BYTES);
  if (!read.ok) return problem(c, read);
  const batch = Array.isArray(read.body);
  const bodies: unknown[] = batch ? (read.body as unknown[]) : [read.body];
  if (bodies.length === 0 || bodies.length > MAX_BATCH) {
    return problem(
      c,
      fail(
        'invalid-body',
        `an array of events must hold 1 to ${MAX_BATCH} events, got ${bodies.length}`,
      ),
    );
  }
  const guards = tokenGuards(c);
  const sender = c.get('principal').sub;
  const drafts: Draft[] = [];
  // Events a keyed sender did not sign: all of them are asked for in one refusal.
  const unsigned: ProblemObject[] = [];
  let refusal: { failure: Failure; index: number } | null = null;
  const built: Draft[] = [];
  for (const [index, body] of bodies.entries()) {
    const drafted = draftOf(body, project.streamId, REGISTRY, { dialect: gsdDialect, sender });
    if (!drafted.ok) return problem(c, atIndex(drafted, index, batch));
    built.push(drafted.draft);
  }
  const correlation = key?.success ? await keyedCorrelation(key.data, batch, built) : null;
  for (const [index, drafted] of built.entries()) {
    const draft = key?.success
      ? {
          ...drafted,
          wire_id: derivedWireId('gsdk', key.data, index),
          correlation_id: correlation,
        }
      : drafted;
    const denied = guards.rights(draft);
    if (denied) return problem(c, atIndex(denied, index, batch));
    const refused = await admission(c.env, draft, REGISTRY);
    if (refused) return problem(c, atIndex(refused, index, batch));
    const signed = await guards.signature(draft);
    if (signed.ok) {
      drafts.push(signed.draft);
      continue;
    }
    const wanted = signed.extra?.unsigned;
    if (wanted === undefined || Array.isArray(wanted) || typeof wanted !== 'object' || !wanted)
      return problem(c, atIndex(signed, index, batch));
    refusal ??= { failure: signed, index };
    unsigned.push(wanted);
  }
  if (refusal !== null) {
    const { failure, index } = refusal;
    const extra = { ...failure.extra, unsigned: batch ? unsigned : (unsigned[0] ?? {}) };
    return problem(c, atIndex({ ...failure, extra }, index, batch));
  }
  const limited = (await guards.rate?.(drafts[0] as Draft)) ?? null;
  if (limited) return problem(c, limited);
  const result = await project.stub.appendMany(drafts);
  if (!result.ok && key?.success && result.code === 'wire-id-conflict') {
    return problem(
      c,
      fail(
        'wire-id-conflict',
        `Idempotency-Key "${key.data}" was used for a different request; nothing of this one was stored (send it with a new key)`,
        { extra: { idempotency_key: key.data } },
      ),
    );
  }
  if (!result.ok) return problem(c, atIndex(result, Number(result.extra?.index ?? 0), batch));
  const stored = result.results.flatMap((r) => (r.ok ? [r] : []));
  const replay = stored.every((r) => r.replay);
  const accepted = stored.map((r) => ({ id: r.receipt.stream_seq, wire_id: r.receipt.wire_id }));
  return c.json(
    { events: accepted, lastEventId: Math.max(...accepted.map((a) => a.id)) },
    replay ? 200 : 201,
    replay ? { 'Idempotent-Replay': 'true' } : {},
  );
});

/** `GET /v1/projects/{project_id}/events`: the filters that replace the seed's jq loops. */
export const EventsQuery = {
  type: z
    .string()
    .regex(
      /^[^\s:,]+(:[^\s:,]+)+(,[^\s:,]+(:[^\s:,]+)+)*$/,
      'type must be colon types, comma-separated',
    )
    .optional()
    .meta({ description: 'Only these colon types (comma-separated), e.g. `task:completed`' }),
  plan_prefix: z.string().min(1).max(200).optional().meta({
    description: "Only events whose `plan` starts with it (the seed's `startswith(PHASE)`)",
  }),
  after: intQuery(0, Number.MAX_SAFE_INTEGER, 0).meta({
    description: 'Only events with a greater event id (`lastEventId` of an earlier answer)',
  }),
  limit: intQuery(1, 5000, 1000).meta({ description: 'Most events in the answer (1-5000)' }),
  wait: intQuery(0, MAX_WAIT_SECONDS, 0).meta({
    description: `Long poll: seconds (0-${MAX_WAIT_SECONDS}) to wait until at least \`count\` events match`,
  }),
  count: intQuery(1, 5000, 1).meta({ description: 'How many matching events `wait` waits for' }),
};

export function filterOf(q: {
  type?: string | undefined;
  plan_prefix?: string | undefined;
}): EventFilter {
  return {
    types: q.type ? new Set(q.type.split(',')) : null,
    planPrefix: q.plan_prefix ?? null,
  };
}

events.get('/projects/:project_id/events', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const parsed = parseQuery(c, EventsQuery);
  if (!parsed.ok) return problem(c, parsed);
  const q = parsed.query;
  if (q.count > q.limit) {
    return problem(
      c,
      fail('invalid-query', `count (${q.count}) must not exceed limit (${q.limit})`),
    );
  }
  const found = await readEvents(project.stub, filterOf(q), q.after, {
    limit: q.limit,
    waitMs: q.wait * 1000,
    count: q.count,
  });
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (q.wait > 0) headers['Wirestream-Wait'] = found.events.length >= q.count ? 'met' : 'timeout';
  if (found.nextAfter !== null) headers['Wirestream-Next-After'] = String(found.nextAfter);
  return Response.json(
    {
      events: found.events,
      lastEventId: found.lastEventId,
      retentionPolicy: found.retentionPolicy,
    },
    { headers },
  );
});
