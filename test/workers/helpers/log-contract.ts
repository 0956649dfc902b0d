import { expect } from 'vitest';
import { untilAnchored } from './anchoring';
import { authHeaders } from './auth';
import { call } from './contract';
import { post, uniqueStream, wire11 } from './wires';

/**
 * Log mode's answers through the document (issue 31): a topic put in log mode
 * over the API with a checkpoint per Wire, its Wire's proof, a consistency
 * proof, and the archive's checkpoint and tiles.
 */
export async function exerciseLogMode(): Promise<void> {
  const streamId = uniqueStream('project');
  const topic = `project.${streamId.slice('project:'.length)}`;
  const headers = await authHeaders('human:ops');
  const json = { ...headers, 'Content-Type': 'application/json' };
  const AN = '/v1/topics/{topic}/anchoring';
  const set = (body: string) =>
    call('put', AN, `/v1/topics/${topic}/anchoring`, { headers: json, body });
  expect((await set('{"mode":"log","every":1}')).status).toBe(200);
  expect((await set('{"every":0}')).status).toBe(422);
  expect((await call('get', AN, `/v1/topics/${topic}/anchoring`, { headers })).status).toBe(200);
  expect((await call('get', AN, '/v1/topics/a%20b/anchoring', { headers })).status).toBe(400);
  expect((await call('get', AN, '/v1/topics/0.0.999998/anchoring', { headers })).status).toBe(404);
  const body = wire11(streamId, { correlation_id: null });
  expect((await post(streamId, body)).status).toBe(201);
  const [wire] = await untilAnchored(streamId, [topic]);
  const topicId = wire?.anchor.hcs_topic_id ?? '';
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
  await exerciseArchive(topicId, headers);
}

/** The archive's tlog-tiles, once the checkpoint is in R2. */
async function exerciseArchive(topicId: string, headers: Record<string, string>) {
  const CP = '/v1/topics/{hcs_topic_id}/log/checkpoint';
  const until = Date.now() + 20_000;
  let checkpoint = await call('get', CP, `/v1/topics/${topicId}/log/checkpoint`, { headers });
  while (checkpoint.status === 404 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    checkpoint = await call('get', CP, `/v1/topics/${topicId}/log/checkpoint`, { headers });
  }
  expect(checkpoint.status).toBe(200);
  expect((await call('get', CP, '/v1/topics/0.0.999999/log/checkpoint', { headers })).status).toBe(
    404,
  );
  const TILE = '/v1/topics/{hcs_topic_id}/log/tile/{tile_path}';
  const tile = (path: string) =>
    call('get', TILE, `/v1/topics/${topicId}/log/tile/${path}`, { headers });
  expect((await tile('entries/000.p/1')).status).toBe(200);
  expect((await tile('0/000.p/1')).status).toBe(200);
  expect((await tile('0/7')).status).toBe(400);
  expect((await tile('0/001')).status).toBe(404);
}
