import { Hono } from 'hono';
import * as z from 'zod';
import { anchorFor, messageLinks } from '../../anchor';
import { RUNNING_HASH_VERSION } from '../../anchor/running-hash';
import { fail, streamIdProblem, WireId } from '../../protocol';
import { streamStub } from '../../stream/stub';
import type { CheckpointView } from '../../topic/log-mode';
import { topicStub } from '../../topic/stub';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import {
  mayTouchStream,
  type Principal,
  principalOf,
  requireReadAll,
  requireScope,
  requireStream,
} from '../auth';
import { bodyProblem } from '../body-problem';
import { problem } from '../problem';
import { intQuery, limitQuery, parseQuery } from '../query';
import { readJsonBody } from '../read-json-body';
import { oneStreamOf, StreamIdFilter } from './read-support';

/** Highest position a page cursor may name (15 digits, as before). */
const MAX_POSITION = 999_999_999_999_999;

/**
 * HCS anchoring as the API shows it:
 *  - `GET /v1/wires/{wire_id}/proof`: where a Wire sits on HCS, with links
 *  - `GET /v1/topics`: every topic, its HCS id and anchoring progress
 *  - `GET /v1/topics/{hcs_topic_id}/anchors?after_seq=&limit=`: the Wires the
 *    coordinator says it anchored there, with their exact message (`npm run verify`)
 *  - `GET /v1/topics/{hcs_topic_id}/log/consistency?from=&to=`: log mode's
 *    consistency proof between two checkpoints (issue 31)
 *  - `GET /v1/alerts?after_id=&limit=`: what the listener found wrong (and ingested)
 *  - `PUT /v1/streams/{stream_id}/topic` `{"topic":"dedicated"|"shared"}`
 */
export const anchoring = new Hono<AppEnv>();

/** `GET /v1/topics/{hcs_topic_id}/anchors`: a page of anchored Wires by HCS sequence number. */
export const AnchorsQuery = {
  after_seq: intQuery(0, MAX_POSITION, 0).meta({
    description: '`hcs_sequence_number` of the last anchor already held (0: from the start)',
  }),
  limit: limitQuery(1000),
};

/** `GET /v1/alerts`: a page of alerts by id. */
export const AlertsQuery = {
  after_id: intQuery(0, MAX_POSITION, 0).meta({
    description: '`id` of the last alert already held (0: from the start)',
  }),
  limit: limitQuery(1000),
};

/** `GET /v1/topics/{hcs_topic_id}/log/consistency`: two tree sizes of confirmed checkpoints. */
export const ConsistencyQuery = {
  from: intQuery(1, Number.MAX_SAFE_INTEGER, 0).meta({
    description: 'Tree size of the older checkpoint',
  }),
  to: intQuery(1, Number.MAX_SAFE_INTEGER, 0).meta({
    description: 'Tree size of the newer checkpoint',
  }),
};

/** `GET /v1/wires/{wire_id}/proof` */
export const ProofQuery = { stream_id: StreamIdFilter.optional() };

/** `PUT /v1/streams/{stream_id}/topic` */
export const TopicBody = z.strictObject({
  topic: z.enum(['dedicated', 'shared'], { error: 'must be "dedicated" or "shared"' }),
});

anchoring.get('/wires/:wire_id/proof', async (c) => {
  const denied = requireScope(c, 'read');
  if (denied) return denied;
  const wireId = c.req.param('wire_id');
  if (!WireId.safeParse(wireId).success) {
    return problem(c, fail('invalid-query', `"${wireId}" is not a wire_id`));
  }
  const parsed = parseQuery(c, ProofQuery);
  if (!parsed.ok) return problem(c, parsed);
  // Streams outside the token's prefixes read as unknown, as in GET /v1/wires/{id}.
  const places = await directoryStub(c.env).locate(wireId);
  const chosen = oneStreamOf(
    c,
    wireId,
    places.map((p) => p.stream_id),
    parsed.query.stream_id,
  );
  if (chosen !== null && !chosen.ok) return problem(c, chosen);
  const where = chosen && places.find((p) => p.stream_id === chosen.streamId);
  const row = where ? await topicStub(c.env, where.topic).find(where.stream_id, wireId) : null;
  if (!where || !row || row.hcs_sequence_number === null) {
    return problem(c, fail('not-found', `wire "${wireId}" is unknown or not anchored yet`));
  }
  const { hcs_topic_id } = await topicStub(c.env, where.topic).status();
  const { config } = anchorFor(c.env);
  const topicId = hcs_topic_id ?? '';
  const inLog = await topicStub(c.env, where.topic).logProof(where.stream_id, wireId);
  if (inLog) {
    const { checkpoint, ...inclusion } = inLog;
    return Response.json({
      mode: 'log',
      wire_id: row.wire_id,
      stream_id: row.stream_id,
      stream_seq: row.stream_seq,
      topic: where.topic,
      network: config.network,
      ...inclusion,
      checkpoint: checkpoint.checkpoint,
      checkpoint_anchor: checkpointAnchor(c.env, topicId, checkpoint),
    });
  }
  const timestamp = row.consensus_timestamp ?? '';
  return Response.json({
    wire_id: row.wire_id,
    stream_id: row.stream_id,
    stream_seq: row.stream_seq,
    topic: where.topic,
    network: config.network,
    hcs_topic_id: topicId,
    hcs_sequence_number: row.hcs_sequence_number,
    hcs_chunks: row.hcs_chunks,
    consensus_timestamp: timestamp,
    running_hash: row.running_hash,
    running_hash_version: RUNNING_HASH_VERSION,
    origin: row.origin,
    message: row.message,
    ...messageLinks(config, topicId, row.hcs_sequence_number, timestamp),
  });
});

anchoring.get('/topics', async (c) => {
  const denied = requireScope(c, 'read');
  if (denied) return denied;
  const principal = principalOf(c);
  const topics = (await directoryStub(c.env).topics()).filter((t) =>
    topicVisible(principal, t.name),
  );
  const statuses = await Promise.all(topics.map((t) => topicStub(c.env, t.name).status()));
  return Response.json({ network: anchorFor(c.env).config.network, topics: statuses });
});

/**
 * Whether a token sees topic `name` in `GET /v1/topics`: every topic without
 * stream prefixes; with them, the topics that belong to one stream it may
 * read (`project.<id>` to `project:<id>`, `stream.<id>` to its stream), so
 * the dashboard can say why its project's Wires wait. Shared topics (a
 * role's, `default`) span streams it may not read and stay hidden.
 */
function topicVisible(principal: Principal, name: string): boolean {
  if (!principal.streams) return true;
  const stream = name.startsWith('project.')
    ? `project:${name.slice('project.'.length)}`
    : name.startsWith('stream.')
      ? name.slice('stream.'.length)
      : null;
  return stream !== null && mayTouchStream(principal, stream);
}

anchoring.get('/topics/:hcs_topic_id/anchors', async (c) => {
  const denied = requireReadAll(c, 'GET /v1/topics/{hcs_topic_id}/anchors');
  if (denied) return denied;
  const topicId = c.req.param('hcs_topic_id');
  const parsed = parseQuery(c, AnchorsQuery);
  if (!parsed.ok) return problem(c, parsed);
  const page = { after: parsed.query.after_seq, limit: parsed.query.limit };
  const names = (await directoryStub(c.env).topics()).filter((t) => t.hcs_topic_id === topicId);
  if (names.length === 0) return problem(c, fail('not-found', `no topic with HCS id "${topicId}"`));
  const parts = await Promise.all(
    names.map((t) => topicStub(c.env, t.name).anchored(page.after, page.limit)),
  );
  const all = parts
    .flatMap((p) => p.wires)
    .sort((a, b) => (a.hcs_sequence_number ?? 0) - (b.hcs_sequence_number ?? 0));
  // A page ends after a whole HCS message: in log mode one checkpoint anchors many Wires.
  const last = all[Math.min(page.limit, all.length) - 1]?.hcs_sequence_number ?? null;
  const wires = all.filter((w, i) => i < page.limit || w.hcs_sequence_number === last);
  return Response.json({
    hcs_topic_id: topicId,
    wires,
    next_after_seq: wires.length >= page.limit ? last : null,
  });
});

anchoring.get('/topics/:hcs_topic_id/log/consistency', async (c) => {
  const denied = requireReadAll(c, 'GET /v1/topics/{hcs_topic_id}/log/consistency');
  if (denied) return denied;
  const topicId = c.req.param('hcs_topic_id');
  const parsed = parseQuery(c, ConsistencyQuery);
  if (!parsed.ok) return problem(c, parsed);
  const { from, to } = parsed.query;
  const missing = from === 0 ? 'from' : to === 0 ? 'to' : null;
  if (missing) {
    const detail = `${missing} is required: the tree size of a checkpoint`;
    return problem(
      c,
      fail('invalid-query', detail, { errors: [{ path: missing, message: detail }] }),
    );
  }
  const names = (await directoryStub(c.env).topics()).filter((t) => t.hcs_topic_id === topicId);
  const answers = await Promise.all(
    names.map((t) => topicStub(c.env, t.name).logConsistency(from, to)),
  );
  const answer = answers.find((a) => a !== null);
  if (!answer) return problem(c, fail('not-found', `no log-mode topic with HCS id "${topicId}"`));
  if (!answer.ok) {
    const { parameter, detail } = answer;
    const errors = [{ path: parameter, message: detail }];
    return problem(c, fail('invalid-query', `${parameter}: ${detail}`, { errors }));
  }
  return Response.json({
    hcs_topic_id: topicId,
    log_origin: answer.log_origin,
    verifier_key: answer.verifier_key,
    verifier_keys: answer.verifier_keys,
    from: { ...answer.from, ...checkpointAnchor(c.env, topicId, answer.from) },
    to: { ...answer.to, ...checkpointAnchor(c.env, topicId, answer.to) },
    consistency_path: answer.consistency_path,
  });
});

/** Where a log checkpoint sits on HCS, with links to check it. */
function checkpointAnchor(env: AppEnv['Bindings'], topicId: string, cp: CheckpointView) {
  const { config } = anchorFor(env);
  return {
    hcs_topic_id: topicId,
    hcs_sequence_number: cp.hcs_sequence_number,
    consensus_timestamp: cp.consensus_timestamp,
    running_hash: cp.running_hash,
    running_hash_version: RUNNING_HASH_VERSION,
    ...messageLinks(config, topicId, cp.hcs_sequence_number, cp.consensus_timestamp),
  };
}

anchoring.get('/alerts', async (c) => {
  const denied = requireReadAll(c, 'GET /v1/alerts');
  if (denied) return denied;
  const parsed = parseQuery(c, AlertsQuery);
  if (!parsed.ok) return problem(c, parsed);
  const page = { after: parsed.query.after_id, limit: parsed.query.limit };
  const alerts = await directoryStub(c.env).alerts(page.after, page.limit);
  return Response.json({ alerts, next_after_id: alerts.at(-1)?.id ?? null });
});

anchoring.put('/streams/:stream_id/topic', async (c) => {
  const streamId = c.req.param('stream_id');
  const problemText = streamIdProblem(streamId);
  if (problemText !== null) return problem(c, fail('invalid-stream-id', problemText));
  const denied = requireScope(c, 'append') ?? requireStream(c, streamId);
  if (denied) return denied;
  const body = await readJsonBody(c, 1024);
  if (!body.ok) return problem(c, body);
  const parsed = TopicBody.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const topic = parsed.data.topic;
  const mode = await streamStub(c.env, streamId).setDedicatedTopic(topic === 'dedicated');
  return Response.json({
    stream_id: streamId,
    topic: mode.dedicated ? `stream.${streamId}` : 'shared',
    role: mode.role,
  });
});
