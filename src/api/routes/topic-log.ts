import { type Context, Hono } from 'hono';
import * as z from 'zod';
import { archiveKey } from '../../anchor/log/archive';
import { logKeys } from '../../anchor/log/keyring';
import { parseTilePath } from '../../anchor/log/tiles';
import { fail } from '../../protocol';
import { logUnavailable } from '../../topic/log-unavailable';
import { topicStub } from '../../topic/stub';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import { requireAllStreams, requireReadAll, requireScope } from '../auth';
import { bodyProblem } from '../body-problem';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';

/**
 * A log-mode topic's archive and its anchoring setting (issue 31):
 *  - `GET /v1/topics/{hcs_topic_id}/log/checkpoint` and
 *    `…/log/tile/{tile_path}`: the C2SP tlog-tiles resources in R2
 *    (`LOG_ARCHIVE`, `topic/log-archive.ts`), read-only, so the API's base
 *    `/v1/topics/{id}/log/` is a tiles client's log prefix
 *  - `GET`/`PUT /v1/topics/{topic}/anchoring`: the topic's own mode and
 *    checkpoint interval over the deployment's (`TopicObject.setAnchoring`)
 */
export const topicLog = new Hono<AppEnv>();

const HCS_ID = /^\d{1,10}\.\d{1,10}\.\d{1,19}$/;
/** A topic name (`default`, `roles.developer`, `project.<id>`, `stream.<stream id>`…) or HCS id. */
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._:~@+-]{0,255}$/;

const wholeNumber = (unit: string, max: number, description: string) => {
  const error = `must be a whole number of ${unit} from 1 to ${max}`;
  return z.int({ error }).min(1, { error }).max(max, { error }).optional().meta({ description });
};

/** `PUT /v1/topics/{topic}/anchoring`: the topic's own settings; a field left out follows the deployment. */
export const AnchoringBody = z.strictObject({
  mode: z.enum(['envelope', 'log'], { error: 'must be "envelope" or "log"' }).optional(),
  every: wholeNumber('Wires', 100_000, 'Wires per checkpoint at most (log mode)'),
  ms: wholeNumber(
    'milliseconds',
    3_600_000,
    'Longest a Wire waits for its checkpoint, in ms (log mode)',
  ),
});

const TILE_CACHE = 'private, max-age=31536000, immutable';

topicLog.get('/topics/:hcs_topic_id/log/checkpoint', async (c) => {
  const denied = requireReadAll(c, 'GET /v1/topics/{hcs_topic_id}/log/checkpoint');
  if (denied) return denied;
  const topicId = c.req.param('hcs_topic_id');
  const object = HCS_ID.test(topicId)
    ? await c.env.LOG_ARCHIVE?.get(archiveKey(topicId, 'checkpoint'))
    : null;
  if (!object) return problem(c, fail('not-found', `no archived log for topic "${topicId}"`));
  // Mutable: the spec asks that it not be cached beyond a few seconds.
  return c.body(await object.text(), 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'private, max-age=2',
  });
});

topicLog.get('/topics/:hcs_topic_id/log/tile/:tile_path{.+}', async (c) => {
  const denied = requireReadAll(c, 'GET /v1/topics/{hcs_topic_id}/log/tile/{tile_path}');
  if (denied) return denied;
  const topicId = c.req.param('hcs_topic_id');
  const path = `tile/${c.req.param('tile_path')}`;
  if (!parseTilePath(path)) {
    const detail = `"${path}" is not a tlog-tiles path: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], N as 3-digit groups (x001/234)`;
    return problem(
      c,
      fail('invalid-query', detail, { errors: [{ path: 'tile_path', message: detail }] }),
    );
  }
  const object = HCS_ID.test(topicId)
    ? await c.env.LOG_ARCHIVE?.get(archiveKey(topicId, path))
    : null;
  if (!object) return problem(c, fail('not-found', `topic "${topicId}" has no archived ${path}`));
  return c.body(await object.arrayBuffer(), 200, {
    'Content-Type': 'application/octet-stream',
    'Cache-Control': TILE_CACHE,
  });
});

/** The TopicObject a `{topic}` names: a topic name as is, an HCS id through the directory. */
async function topicNamed(env: AppEnv['Bindings'], topic: string) {
  if (!TOPIC.test(topic))
    return fail('invalid-query', `"${topic}" is neither a topic name nor an HCS topic id`, {
      errors: [{ path: 'topic', message: 'must be a topic name or an HCS topic id (0.0.N)' }],
    });
  if (!HCS_ID.test(topic)) return { name: topic };
  const names = (await directoryStub(env).topics()).filter((t) => t.hcs_topic_id === topic);
  const [only, ...more] = names;
  if (!only) return fail('not-found', `no topic with HCS id "${topic}"`);
  if (more.length > 0) {
    const detail = `HCS id ${topic} is shared by the topics ${names.map((t) => t.name).join(', ')}: name one`;
    return fail('invalid-query', detail, { errors: [{ path: 'topic', message: detail }] });
  }
  return { name: only.name };
}

async function anchoringAnswer(env: AppEnv['Bindings'], name: string) {
  const view = await topicStub(env, name).anchoring();
  return { topic: name, ...view };
}

/** The caller's right to the route, then the topic `{topic}` names; else the refusal. */
async function guardedTopic(
  c: Context<AppEnv>,
  scope: 'read' | 'admin',
): Promise<Response | string> {
  const route = `${c.req.method} /v1/topics/{topic}/anchoring`;
  const denied = requireScope(c, scope) ?? requireAllStreams(c, route);
  if (denied) return denied;
  const named = await topicNamed(c.env, c.req.param('topic') ?? '');
  return 'name' in named ? named.name : problem(c, named);
}

topicLog.get('/topics/:topic/anchoring', async (c) => {
  const name = await guardedTopic(c, 'read');
  if (typeof name !== 'string') return name;
  return Response.json(await anchoringAnswer(c.env, name));
});

topicLog.put('/topics/:topic/anchoring', async (c) => {
  const name = await guardedTopic(c, 'admin');
  if (typeof name !== 'string') return name;
  const body = await readJsonBody(c, 1024);
  if (!body.ok) return problem(c, body);
  const parsed = AnchoringBody.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const own = parsed.data;
  const mode = own.mode ?? (c.env.ANCHOR_MODE === 'log' ? 'log' : 'envelope');
  const keys = mode === 'log' ? await logKeys(c.env) : null;
  if (keys && !keys.ok) {
    const detail =
      keys.field === 'LOG_SIGNER_KEY'
        ? 'log mode needs the LOG_SIGNER_KEY secret, which this deployment lacks'
        : `log mode needs a valid LOG_VERIFIER_KEYS: ${keys.detail}`;
    return problem(
      c,
      fail('invalid-body', detail, { errors: [{ path: 'mode', message: detail }] }),
    );
  }
  if (own.mode === 'log') {
    const { hcs_topic_id } = await topicStub(c.env, name).anchoring();
    const unavailable = logUnavailable(c.env, name, hcs_topic_id);
    if (unavailable !== null) {
      return problem(
        c,
        fail('invalid-body', unavailable, { errors: [{ path: 'mode', message: unavailable }] }),
      );
    }
  }
  await topicStub(c.env, name).setAnchoring(own);
  return Response.json(await anchoringAnswer(c.env, name));
});
