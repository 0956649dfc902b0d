import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { topicStub } from '../../../src/topic/stub';
import { untilAnchored } from './anchoring';
import { authHeaders } from './auth';
import { call } from './contract';
import { post, uniqueStream, wire11 } from './wires';

/**
 * Log mode's answers through the document (issue 31): a topic put in log mode
 * with a checkpoint per Wire, its Wire's proof, and a consistency proof.
 */
export async function exerciseLogMode(): Promise<void> {
  const streamId = uniqueStream('project');
  const topic = `project.${streamId.slice('project:'.length)}`;
  await topicStub(env, topic).setAnchoring({ mode: 'log', every: 1 });
  const body = wire11(streamId, { correlation_id: null });
  expect((await post(streamId, body)).status).toBe(201);
  const [wire] = await untilAnchored(streamId, [topic]);
  const topicId = wire?.anchor.hcs_topic_id ?? '';
  const headers = await authHeaders('human:ops');
  const proof = await call('get', '/v1/wires/{wire_id}/proof', `/v1/wires/${body.wire_id}/proof`, {
    headers,
  });
  expect(proof.status).toBe(200);
  expect(proof.body).toMatchObject({ mode: 'log', leaf_index: 0, tree_size: 1 });
  const template = '/v1/topics/{hcs_topic_id}/log/consistency';
  const url = (query: string) => `/v1/topics/${topicId}/log/consistency?${query}`;
  expect((await call('get', template, url('from=1&to=1'), { headers })).status).toBe(200);
  expect((await call('get', template, url('from=2&to=1'), { headers })).status).toBe(400);
  const unknown = '/v1/topics/0.0.999999/log/consistency?from=1&to=1';
  expect((await call('get', template, unknown, { headers })).status).toBe(404);
}
